import IAPAuditModel

/// The App Store Connect reports iap-audit reads from a tab-separated file, told apart by the column
/// names of their header line (never by the file's name): names and column counts change between
/// versions, so every column is found by its name.
enum ReportLayout: CaseIterable {
    case summarySales, legacyDailySales, subscription, subscriptionEvent, subscriber, financial

    /// The column names that tell this layout apart, checked in `allCases` order (the Subscriber report
    /// has an `Event Date` as the Subscription Event report does, so it is tried first).
    var signature: [String] {
        switch self {
        case .financial: return ["Partner Share", "Extended Partner Share", "Partner Share Currency"]
        case .subscriber: return ["Event Date", "Subscriber ID"]
        case .subscriptionEvent: return ["Event Date", "Event"]
        case .summarySales: return ["Units", "Developer Proceeds", "Begin Date"]
        case .legacyDailySales: return ["Units", "Royalty Price", "Begin Date"]
        case .subscription: return ["Customer Price", "Developer Proceeds", "Proceeds Currency"]
        }
    }

    /// Checked in this order: the first layout whose signature the header holds.
    static let detectionOrder: [ReportLayout] = [
        .financial, .subscriber, .subscriptionEvent, .summarySales, .legacyDailySales, .subscription,
    ]

    var kind: SourceKind {
        switch self {
        case .summarySales, .legacyDailySales: return .salesReport
        case .subscription: return .subscriptionReport
        case .subscriptionEvent: return .subscriptionEventReport
        case .subscriber: return .subscriberReport
        case .financial: return .financialReport
        }
    }

    /// What the file was taken for (`source_file.note`).
    var note: String {
        switch self {
        case .summarySales: return "App Store Connect Summary Sales report"
        case .legacyDailySales: return "iTunes Connect daily sales report (legacy layout)"
        case .subscription: return "App Store Connect Subscription report"
        case .subscriptionEvent: return "App Store Connect Subscription Event report"
        case .subscriber: return "App Store Connect Subscriber report"
        case .financial: return "App Store Connect financial report"
        }
    }

    /// Columns a line cannot be read without (each a list of the names versions gave it); a header
    /// lacking one has every line rejected.
    var required: [[String]] {
        switch self {
        case .summarySales, .legacyDailySales:
            return [
                ["Units"], ["Developer Proceeds", "Royalty Price"], ["Currency of Proceeds", "Royalty Currency"], ["Begin Date"],
                ["End Date"], ["Customer Price"], ["Customer Currency"], ["SKU", "Vendor Identifier"],
            ]
        case .subscription:
            return [["Customer Price"], ["Customer Currency"], ["Developer Proceeds"], ["Proceeds Currency"]]
        case .subscriptionEvent: return [["Event Date"], ["Event"], ["Quantity"]]
        case .subscriber:
            return [
                ["Event Date"], ["Customer Price"], ["Customer Currency"], ["Developer Proceeds"], ["Proceeds Currency"], ["Units"],
            ]
        case .financial:
            return [
                ["Start Date"], ["End Date"], ["Quantity"], ["Partner Share"], ["Extended Partner Share"], ["Partner Share Currency"],
                ["Sales or Return"], ["Customer Price"],
                // The product and the country: without them every line is read as a product of no name (found by a finance
                // retest: the region's proceeds went to one blank product, and every product showed a false remainder).
                ["Vendor Identifier"], ["Country Of Sale"],
            ]
        }
    }
}

/// A report's header line: its column names, and where each is.
struct ReportHeader {
    /// The layout the names say.
    let layout: ReportLayout
    /// Column names in order, white space around each removed.
    let names: [String]
    /// The header's line number.
    let line: Int
    /// Name → position (the first column of that name).
    private let index: [String: Int]

    init(layout: ReportLayout, names: [String], line: Int) {
        (self.layout, self.names, self.line) = (layout, names, line)
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        self.index = index
    }

    /// The header of `line` when it is one of a report this version reads: nil otherwise. A header whose
    /// columns are not separated by tabs is recognized too (by its names), to be refused line by line.
    static func of(_ line: String, number: Int) -> (header: ReportHeader?, untabbed: ReportLayout?)? {
        if line.contains("\t") {
            let names = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let set = Set(names)
            // Every name of a signature; else all but one of them, and at least two: a report missing one of the columns
            // that tell it apart is that report, refused for the missing column — not an unknown file skipped in silence
            // (found by a finance user test: a Financial report without `Extended Partner Share` left the close's
            // proceeds of its region at 0 and said nothing).
            let near = { (layout: ReportLayout) in layout.signature.filter(set.contains).count >= max(2, layout.signature.count - 1) }
            guard
                let layout = ReportLayout.detectionOrder.first(where: { set.isSuperset(of: $0.signature) })
                    ?? ReportLayout.detectionOrder.first(where: near)
            else { return nil }
            return (ReportHeader(layout: layout, names: names, line: number), nil)
        }
        // Tabs turned into spaces: the names are still there, the columns can no longer be told apart.
        let layout = ReportLayout.detectionOrder.first { $0.signature.allSatisfy { line.contains($0) } }
        return layout.map { (nil, $0) }
    }

    /// The position of the first of `names` this header has.
    func position(_ names: [String]) -> Int? { names.lazy.compactMap { index[$0] }.first }

    /// The first required column (by its first name) the header lacks.
    var missingColumn: String? { layout.required.first { position($0) == nil }?.first }
}
