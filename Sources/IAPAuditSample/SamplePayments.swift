import IAPAuditModel

/// The payments summary (`financial_report.csv`) of fiscal October 2026: each region's Financial report
/// earnings, Japan's withholding tax, and the amount paid into the developer's USD bank account at
/// Apple's exchange rates.
struct SamplePayments {
    struct Region {
        var region: SamplePrices.Region
        /// Net units (sales less returns) and earnings (the Financial report's Total_Amount), in the region's currency.
        var units: Int64
        var earned: Int64
        var withholding: Int64
        var owed: Int64 { earned + withholding }
        /// USD per unit of the region's currency, five decimals.
        var rate: String
        /// `owed` × rate in USD milliunits, rounded half up to the cent.
        var proceeds: Int64
    }

    /// USD per unit of each region's currency, as text and × 100,000.
    static let exchangeRates: [String: (text: String, scaled: Int64)] = [
        "USD": ("1.00000", 100_000), "EUR": ("1.08120", 108_120), "GBP": ("1.26500", 126_500), "JPY": ("0.00665", 665),
    ]

    let regions: [Region]

    init(_ reports: SampleAppleReports) {
        regions = SamplePrices.regions.map { region in
            let rows = reports.financialRows.filter { $0.store.region == region }
            let earned = rows.reduce(Int64(0)) { $0 + $1.units * $1.proceeds }
            // Japan withholds 20.42 % of a foreign developer's earnings, in whole yen.
            let withholding = region.currency == "JPY" ? -(earned / 1000 * 2042 / 10_000) * 1000 : 0
            let rate = Self.exchangeRates[region.currency]!
            let owed = earned + withholding
            return Region(
                region: region, units: rows.reduce(Int64(0)) { $0 + $1.units }, earned: earned, withholding: withholding, rate: rate.text,
                proceeds: Self.convert(owed, rate.scaled))
        }
    }

    /// Milliunits × rate (× 100,000) → USD milliunits rounded half up to the cent.
    static func convert(_ milliunits: Int64, _ scaled: Int64) -> Int64 {
        (milliunits * scaled + 500_000) / 1_000_000 * 10
    }

    var total: Int64 { regions.reduce(0) { $0 + $1.proceeds } }

    /// `financial_report.csv` as App Store Connect writes it (its CSV is not RFC 4180: the total's quoted
    /// number is followed by the currency).
    var text: String {
        var lines = [
            "\"iTunes Connect - Payments and Financial Reports\t(October, 2026)\",,,,,,,,,,,,", ",,,,,,,,,,,,",
            "Region (Currency),Units Sold,Earned,Pre-Tax Subtotal,Input Tax,Adjustments,Withholding Tax,Total Owed,Exchange Rate,Proceeds,"
                + "Bank Account Currency,",
        ]
        for r in regions {
            let c = r.region.currency
            let fields = [
                String(r.units), SamplePrices.decimal(r.earned, currency: c), SamplePrices.decimal(r.earned, currency: c), "0", "0",
                r.withholding == 0 ? "0" : SamplePrices.decimal(r.withholding, currency: c), SamplePrices.decimal(r.owed, currency: c),
                r.rate,
                SamplePrices.decimal(r.proceeds, currency: "USD"), "USD",
            ]
            lines.append("\(r.region.name) (\(c))," + fields.map { "\"\($0)\"" }.joined(separator: ",") + ",")
        }
        lines += [
            ",,,,,,,,,,,,", ",,,,,,,,,,\"\(SamplePrices.decimal(total, currency: "USD"))\" USD,,",
            ",,,,,,,,,,Paid to EXAMPLE BANK -****4321,,",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
