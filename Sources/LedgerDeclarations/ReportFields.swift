// Field shapes shared by the App Store Connect report records (SalesReports.swift, FinanceReports.swift):
// each field's `name` is Apple's column header, read by that name whatever its position.

/// Apple's column name as a Swift property and an SQL column: `Subscription Offer Type` →
/// `subscriptionOfferType`, `subscription_offer_type` (`/` and `-` separate words too; `ID` → `Id`).
func reportNames(_ header: String) -> (property: String, column: String) {
    let words = header.split { $0 == " " || $0 == "/" || $0 == "-" }.map { $0.lowercased() }
    return (words[0] + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(), words.joined(separator: "_"))
}

/// The declaration of a report's records, one a report line keyed by `record_id`, named after `table`
/// (`sales_report_line`: type `SalesReportLine`, row `SalesReportRow`, batch `salesReportLines`). `doc`: the type's
/// doc comment as one text, a line of it a line.
func reportRecord(_ table: String, doc: String, fields: [FieldDeclaration]) -> RecordDeclaration {
    let type = table.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    return RecordDeclaration(
        table: table, type: type, row: (type.hasSuffix("Line") ? String(type.dropLast(4)) : type) + "Row",
        batchProperty: type.prefix(1).lowercased() + type.dropFirst() + "s", key: .fileLine(column: "record_id"),
        doc: docLines(doc), fields: fields)
}

/// Apple's column `header` kept as its text (a field of only spaces, Apple's way of writing an empty
/// one, is nil); its property and column named after it unless given.
func reportText(_ header: String, as names: (String, String)? = nil, required: Bool = false, doc: [String] = []) -> FieldDeclaration {
    let (property, column) = names ?? reportNames(header)
    return FieldDeclaration(header, property, .text(required: required), column: column, doc: doc)
}

/// Apple's column `header`, a whole number (digits, `-` for a negative one; never a fraction).
func reportCount(_ header: String, as names: (String, String)? = nil, required: Bool = false, doc: [String] = []) -> FieldDeclaration {
    let (property, column) = names ?? reportNames(header)
    return FieldDeclaration(header, property, .integer(swift: "Int64", required: required), column: column, doc: doc)
}

/// An amount in milliunits (1 unit = 1000, `Money.milliunits`: read from Apple's decimal text exactly,
/// never through floating point) of the currency named in `doc`: `Customer Price` is
/// `customerPriceMilliunits`, `customer_price_milliunits`.
func reportMoney(_ header: String, as names: (String, String)? = nil, required: Bool = true, doc: [String]) -> FieldDeclaration {
    let (property, column) = names ?? reportNames(header)
    return FieldDeclaration(
        header, property + (names == nil ? "Milliunits" : ""), .integer(swift: "Int64", required: required),
        column: column + (names == nil ? "_milliunits" : ""), doc: doc)
}

/// An ISO 8601 calendar date (`2020-10-05`) as TEXT, from Apple's `MM/DD/YYYY` or `YYYY-MM-DD`.
func reportDate(_ header: String, required: Bool = false, doc: [String]) -> FieldDeclaration {
    reportText(header, required: required, doc: doc)
}

/// A line total computed from the per-unit `header` (`Customer Price` → `customer_price_total_milliunits`):
/// its sign is the line's, not the per-unit amount's (Apple writes a refund's per-unit price negative in
/// some reports and positive in others).
func lineTotal(_ header: String, count: String, currency: String, doc: [String]? = nil) -> FieldDeclaration {
    let (property, column) = reportNames(header)
    return FieldDeclaration(
        column + "_total", property + "TotalMilliunits", .integer(swift: "Int64", required: true), column: column + "_total_milliunits",
        doc: doc ?? [
            "`\(count)` × `\(header)` in milliunits of `\(currency)`, computed exactly (checked, no rounding): the line's",
            "total, its sign that of the line (negative for a refund) whatever the sign Apple gave the per-unit amount.",
        ])
}

/// The columns naming an app and its subscription, common to the Subscription, Subscription Event and
/// Subscriber reports (older versions: `Subscription Duration` for `Standard Subscription Duration`).
let subscriptionIdentity: [FieldDeclaration] =
    ["App Name", "App Apple ID", "Subscription Name", "Subscription Apple ID", "Subscription Group ID"].map { reportText($0) } + [
        reportText(
            "Standard Subscription Duration",
            doc: ["`Standard Subscription Duration` (`7 Days`, `1 Month`, `1 Year`); `Subscription Duration` in older versions."])
    ]

/// A promotional offer (Subscription and Subscription Event reports; later versions name it `Subscription
/// Offer Name`).
let promotionalOffer = [reportText("Promotional Offer Name"), reportText("Promotional Offer ID")]

/// The introductory or offer-code offer a subscriber is in (older versions: `Introductory Price Type`/`Duration`).
let subscriptionOffer = ["Subscription Offer Type", "Subscription Offer Duration", "Marketing Opt-In Duration"].map { reportText($0) }

/// The price and proceeds of the Subscription and Subscriber reports, `per` a subscription period or unit.
func subscriptionPrices(per: String, refund: String = "") -> [FieldDeclaration] {
    [
        reportMoney("Customer Price", doc: ["`Customer Price` per \(per), milliunits of `customer_currency`, as Apple wrote it\(refund)."]),
        reportText("Customer Currency", required: true, doc: ["ISO 4217 code."]),
        reportMoney("Developer Proceeds", doc: ["`Developer Proceeds` per \(per), milliunits of `proceeds_currency`, as Apple wrote it."]),
        reportText("Proceeds Currency", doc: ["ISO 4217; nil when empty (zero proceeds)."]),
    ]
}

/// Where and how the subscription was sold, common to the three subscription reports.
let subscriptionSale: [FieldDeclaration] = [
    reportText("Preserved Pricing", doc: ["`Yes` when a price increase spared the subscriber."]),
    reportText("Proceeds Reason", doc: ["`Rate After One Year` when proceeds rose to 85 %."]),
    reportText("Client"), reportText("Device"), reportText("Country", doc: ["`Country`: ISO 3166-1 alpha-2 code of the storefront."]),
]
