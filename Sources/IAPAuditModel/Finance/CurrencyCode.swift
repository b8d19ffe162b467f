/// ISO 4217 alphabetic currency codes: what a price list's `storefront_or_currency` may name besides a
/// storefront, and what `Money.currency` holds.
public enum CurrencyCode {
    /// The ISO 4217 codes of currencies and funds in use or recently retired (HRK, SLL, ZWL kept for
    /// older prices), without precious metals, bond units, SDRs and the test codes (XAU, XBA…, XDR,
    /// XTS, XXX); with ZWG (2024) and XCG (2025).
    public static let iso4217 = Set(
        """
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP
        BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB
        EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD
        JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU
        MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD
        RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY
        TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW
        ZWG ZWL
        """.split(whereSeparator: \.isWhitespace).map(String.init))

    /// Whether `code` is one of `iso4217` (upper case, as ISO writes them).
    public static func isISO4217(_ code: String) -> Bool { iso4217.contains(code) }
}
