import IAPAuditModel

/// One line of App Store Connect's reports as Apple would have made it from the sales the generator knows
/// are real: a product sold (or refunded) in a storefront at a customer price on a Pacific-time day.
struct SampleAppleLine: Hashable, Comparable {
    var day: String
    var productId: String
    var storefront: String
    /// Customer price per unit (milliunits, positive; a prorated refund's is the refunded share).
    var unitPrice: Int64
    var refund: Bool
    /// Units (negative for refunds).
    var units: Int64 = 0

    var store: SamplePrices.Storefront { SamplePrices.storefront(storefront) }
    var currency: String { store.currency }
    /// Developer Proceeds / Partner Share per unit.
    var proceeds: Int64 { SamplePrices.proceeds(unitPrice, store) }

    static func < (a: Self, b: Self) -> Bool {
        (a.day, a.productId, a.store.alpha2, a.unitPrice, a.refund ? 1 : 0) < (
            b.day, b.productId, b.store.alpha2, b.unitPrice, b.refund ? 1 : 0
        )
    }
}

/// Apple's reports for the sample's month: Summary Sales (one file per Pacific-time day of October 2026),
/// the Financial reports of fiscal October 2026 per region, and the payments summary.
struct SampleAppleReports {
    /// Every day's lines (sales and refunds, each day and key added up), sorted.
    let daily: [SampleAppleLine]

    static let vendor = "85012345"

    /// - Parameters: sales: the book's sales; Apple counts the paid ones that are no trial and not
    ///   `omitted`, and their refunds; `appleOnly` are sales Apple counts that the ledger never saw.
    init(sales: [SampleSale], omitted: Set<String>, appleOnly: [SampleAppleSale]) {
        var units: [SampleAppleLine: Int64] = [:]
        func add(_ at: Int64, _ product: String, _ storefront: String, _ price: Int64, _ n: Int64, refund: Bool) {
            let line = SampleAppleLine(
                day: SampleClock.pacificDay(at), productId: product, storefront: storefront, unitPrice: price, refund: refund)
            units[line, default: 0] += n
        }
        for sale in sales where sale.saleClass == .paid && !sale.trial && !omitted.contains(sale.key) {
            add(sale.at, sale.productId, sale.storefront, sale.unitPrice, sale.quantity, refund: false)
            for r in sale.refunds {
                let price = r.percent.map { (sale.unitPrice * $0 + 50_000) / 100_000 } ?? sale.unitPrice
                add(r.at, sale.productId, sale.storefront, price, -sale.quantity, refund: true)
            }
        }
        for s in appleOnly { add(s.at, s.productId, s.storefront, s.unitPrice, 1, refund: false) }
        daily = units.map { line, n in
            var line = line
            line.units = n
            return line
        }.sorted()
    }

    /// The October days Summary Sales reports (Pacific time).
    static let salesDays = SampleClock.days(from: "2026-10-01", to: "2026-10-31")

    /// Lines of the Summary Sales reports: the days of October.
    var salesLines: [SampleAppleLine] { daily.filter { Self.salesDays.contains($0.day) } }

    /// Rows of fiscal October's Financial reports: the fiscal month's lines by product, country, price and
    /// sale or return, added up.
    var financialRows: [SampleAppleLine] {
        let (first, last) = SampleClock.fiscalOctober
        var units: [SampleAppleLine: Int64] = [:]
        for line in daily where line.day >= first && line.day <= last {
            var key = line
            (key.day, key.units) = ("", 0)
            units[key, default: 0] += line.units
        }
        return units.map { line, n in
            var line = line
            line.units = n
            return line
        }.sorted()
    }

    // MARK: Files

    static let salesHeader = [
        "Provider", "Provider Country", "SKU", "Developer", "Title", "Version", "Product Type Identifier", "Units", "Developer Proceeds",
        "Begin Date", "End Date", "Customer Currency", "Country Code", "Currency of Proceeds", "Apple Identifier", "Customer Price",
        "Promo Code", "Parent Identifier", "Subscription", "Period", "Category", "CMB", "Device", "Supported Platforms", "Proceeds Reason",
        "Preserved Pricing", "Client", "Order Type",
    ]

    /// `S_D_<vendor>_<yyyymmdd>.txt` → its text: one Summary Sales report per October day.
    var salesFiles: [(name: String, text: String)] {
        Self.salesDays.map { day in
            let date = SampleClock.reportDate(day)
            let rows = salesLines.filter { $0.day == day }.map { l -> [String] in
                let c = l.currency
                return [
                    "APPLE", "US", l.productId, " ", Self.title(l.productId), " ", Self.typeIdentifier(l.productId), String(l.units),
                    SamplePrices.decimal(l.proceeds, currency: c), date, date, c, l.store.alpha2, c,
                    String(SampleCatalog.itemId(l.productId)), SamplePrices.decimal(l.unitPrice, currency: c),
                    l.unitPrice == 0 ? "FREEPREMIUM" : " ", SampleCatalog.bundleId, Self.subscription(l.productId),
                    Self.period(l.productId),
                    "Games", " ", "iPhone", "iOS", " ", " ", " ", " ",
                ]
            }
            let name = "S_D_\(Self.vendor)_\(day.replacingOccurrences(of: "-", with: "")).txt"
            return (name, ([Self.salesHeader] + rows).map { $0.joined(separator: "\t") + "\n" }.joined())
        }
    }

    static let financialHeader = [
        "Start Date", "End Date", "UPC", "ISRC/ISBN", "Vendor Identifier", "Quantity", "Partner Share", "Extended Partner Share",
        "Partner Share Currency", "Sales or Return", "Apple Identifier", "Artist/Show/Developer/Author", "Title",
        "Label/Studio/Network/Developer/Publisher", "Grid", "Product Type Identifier", "ISAN/Other Identifier", "Country Of Sale",
        "Pre-order Flag", "Promo Code", "Customer Price", "Customer Currency",
    ]

    /// `<vendor>_1026_<region>.txt` → its text: fiscal October 2026's Financial report of each region,
    /// with the totals Apple states after the rows.
    var financialFiles: [(name: String, text: String, region: SamplePrices.Region)] {
        let (first, last) = SampleClock.fiscalOctober
        return SamplePrices.regions.map { region in
            let rows = financialRows.filter { $0.store.region == region }
            let c = region.currency
            var lines = [Self.financialHeader]
            for r in rows {
                lines.append([
                    SampleClock.reportDate(first), SampleClock.reportDate(last), "", "", r.productId, String(r.units),
                    SamplePrices.decimal(r.proceeds, currency: c), SamplePrices.decimal(r.units * r.proceeds, currency: c), c,
                    r.refund ? "R" : "S", String(SampleCatalog.itemId(r.productId)), "Example Games Inc.", Self.title(r.productId), "", "",
                    Self.typeIdentifier(r.productId), "", r.store.alpha2, "", r.unitPrice == 0 ? "FREEPREMIUM" : "",
                    SamplePrices.decimal(r.refund ? -r.unitPrice : r.unitPrice, currency: c), c,
                ])
            }
            let amount = rows.reduce(Int64(0)) { $0 + $1.units * $1.proceeds }
            let units = rows.filter { !$0.refund }.reduce(Int64(0)) { $0 + $1.units }
            lines += [
                ["Total_Rows", String(rows.count)], ["Total_Amount", SamplePrices.decimal(amount, currency: c)],
                ["Total_Units", String(units)],
            ]
            return ("\(Self.vendor)_1026_\(region.code).txt", lines.map { $0.joined(separator: "\t") + "\n" }.joined(), region)
        }
    }

    static func title(_ product: String) -> String {
        product.replacingOccurrences(of: "com.example.", with: "").split(separator: ".").map { $0.capitalized }.joined(separator: " ")
    }

    /// Apple's product type identifiers: IA1 in-app purchase, IAY auto-renewable, IA9 non-renewing.
    static func typeIdentifier(_ product: String) -> String {
        switch SampleBook.productTypes[product] {
        case "auto_renewable": return "IAY"
        case "non_renewing": return "IA9"
        default: return "IA1"
        }
    }

    static func subscription(_ product: String) -> String { typeIdentifier(product) == "IAY" ? "New" : " " }
    static func period(_ product: String) -> String {
        product == SampleCatalog.weekly ? "7 Days" : product == SampleCatalog.monthly ? "1 Month" : " "
    }
}
