/// What the close reads from the ledger (docs/close.md), as the store hands it over: the transactions
/// Apple's records list, the purchases the client reported, and the lines of App Store Connect's
/// reports. Times are UTC milliseconds; amounts milliunits of the named currency.
package struct CloseInputs: Sendable {
    package var listings: [CloseListing] = []
    package var clientPurchases: [ClientPurchase] = []
    package var sales: [SalesLine] = []
    package var financial: [FinancialLine] = []
    package var payments: [PaymentLine] = []
    package var findings: [Finding] = []
    /// App Store Connect's report files of the ledger, with their rejected lines.
    package var reportFiles: [ReportFile] = []
    /// Transaction ids Apple's records list in purchases not read (`CloseRelevance`): the originals of the client
    /// purchases read that such a record lists, so a client purchase is "claimed" only when no record lists it.
    package var listedElsewhere: Set<String> = []

    package init() {}
}

/// The Apple listings a close reads (docs/close.md, Time and memory): the purchases with a date in `windowMs`,
/// and those of a transaction a finding names — a purchase with no purchase, original purchase or refund date
/// in the instants a close can book adds to none of its figures. The client purchases no record lists are all
/// read (a dropped order's sale).
package struct CloseRelevance: Sendable {
    /// UTC ms: the period, its Pacific days and its fiscal months' dates, a day wider each side.
    package var windowMs: ClosedRange<Int64>
    /// Transaction ids the findings name.
    package var transactionIds: Set<String>
    /// A listing's purchase key (`LedgerSales.key`: every listing of a purchase is read, or none).
    package var key: @Sendable (CloseListing) -> String

    package init(windowMs: ClosedRange<Int64>, transactionIds: Set<String>, key: @escaping @Sendable (CloseListing) -> String) {
        (self.windowMs, self.transactionIds, self.key) = (windowMs, transactionIds, key)
    }
}

/// An App Store Connect report file of the ledger (`source_file`), and how many of its lines were rejected.
package struct ReportFile: Sendable {
    package var path: String
    /// `source_file.kind`: `sales_report`, `financial_report`, `payments_summary`…
    package var kind: String
    package var recordsIn: Int64
    package var rejected: Int64
    /// The first rejected line and its reason; nil when none was rejected.
    package var firstRejection: (line: Int64, reason: String)?

    package init(path: String, kind: String, recordsIn: Int64, rejected: Int64, firstRejection: (line: Int64, reason: String)?) {
        (self.path, self.kind, self.recordsIn, self.rejected, self.firstRejection) = (path, kind, recordsIn, rejected, firstRejection)
    }
}

/// One transaction as one Apple record lists it (apple_transaction ⋈ apple_record).
package struct CloseListing: Sendable {
    package var location: SourceLocation
    package var transactionId: String
    package var originalTransactionId: String?
    package var webOrderLineItemId: String?
    package var productId: String?
    /// Apple's `purchase_date` / JWS `purchaseDate`, UTC ms.
    package var purchaseDateMs: Int64?
    package var originalPurchaseDateMs: Int64?
    /// `cancellation_date` / JWS `revocationDate`, UTC ms.
    package var cancellationDateMs: Int64?
    /// JWS `revocationPercentage`: thousandths of a percent (50000 = 50 %); nil = the whole amount.
    package var revocationPercentage: Int64?
    /// JWS `price` (milliunits of `currency`): the transaction's total.
    package var priceMilliunits: Int64?
    package var currency: String?
    /// JWS `storefront`: ISO 3166-1 alpha-3.
    package var storefront: String?
    /// A free trial (`is_trial_period`, JWS `offerDiscountType` FREE_TRIAL).
    package var isTrialPeriod: Bool
    /// Units bought (receipt item / JWS `quantity`; 1 when not given).
    package var quantity: Int64 = 1
    /// JWS `type` (`Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`, `Non-Renewing Subscription`).
    package var type: String?
    /// The notification that listed it (`REFUND_REVERSED` undoes a refund).
    package var notificationType: String?
    /// When Apple issued the record: its `signedDate`, else the transaction's, else `received_at`, UTC ms.
    package var issuedMs: Int64?
    package var evidence: PaymentEvidence
    /// Its record names a verification request of the server log (`request_id`): false for a Notification V1 body, a
    /// bare answer, a `request_id` the log lacks.
    package var linked = true
    /// Its record is an app or transaction receipt (PKCS#7): verified, it is `verifiedReceipt`, below a verified JWS.
    package var isReceipt = false

    /// How it is proven (`TrustLevel`): from its record's signature and source, an unsigned answer no logged request
    /// links to lowered to `appleAnswerUnlinked` (as `ReconcileContext.trust` judges it).
    package var level: TrustLevel {
        let level = TrustLevel(isSigned: evidence.isSigned, isReceipt: isReceipt, signature: evidence.itemSignature)
        return level == .appleAnswerLogged && !linked ? .appleAnswerUnlinked : level
    }

    package init(location: SourceLocation, transactionId: String, evidence: PaymentEvidence) {
        (self.location, self.transactionId, self.evidence) = (location, transactionId, evidence)
        isTrialPeriod = false
    }
}

/// A purchase the client reported (`client_report`, state `purchased`).
package struct ClientPurchase: Sendable {
    package var location: SourceLocation
    package var transactionId: String
    package var originalTransactionId: String?
    package var productId: String?
    /// The report's `ts`, UTC ms.
    package var tsMs: Int64

    package init(location: SourceLocation, transactionId: String, originalTransactionId: String?, productId: String?, tsMs: Int64) {
        (self.location, self.transactionId, self.originalTransactionId, self.productId, self.tsMs) = (
            location, transactionId, originalTransactionId, productId, tsMs
        )
    }
}

/// A line of Sales and Trends' Summary Sales report: Pacific-time calendar days; amounts per unit.
package struct SalesLine: Sendable {
    package var location: SourceLocation
    /// `SKU` (the product id of an in-app purchase).
    package var productId: String
    /// `Begin Date` .. `End Date`, Pacific-time days.
    package var beginDate: CalendarDate
    package var endDate: CalendarDate
    /// `Country Code`, ISO 3166-1 alpha-2.
    package var countryCode: String
    /// `Units` (negative for refunds).
    package var units: Int64
    /// `Customer Price` per unit, in `Customer Currency`.
    package var customerPrice: Money
    /// `Developer Proceeds` per unit, in `Currency of Proceeds`.
    package var proceeds: Money

    package init(
        location: SourceLocation, productId: String, beginDate: CalendarDate, endDate: CalendarDate, countryCode: String, units: Int64,
        customerPrice: Money, proceeds: Money
    ) {
        (self.location, self.productId, self.beginDate, self.endDate, self.countryCode, self.units, self.customerPrice, self.proceeds) = (
            location, productId, beginDate, endDate, countryCode, units, customerPrice, proceeds
        )
    }
}

/// A line of a Financial report: one fiscal month, settled transactions; amounts per unit.
package struct FinancialLine: Sendable {
    package var location: SourceLocation
    /// `Vendor Identifier` (the product id).
    package var productId: String
    /// `Start Date` .. `End Date`: the fiscal month.
    package var startDate: CalendarDate
    package var endDate: CalendarDate
    /// `Country Of Sale`, alpha-2.
    package var countryCode: String
    /// `Quantity` (negative for `R`eturns).
    package var quantity: Int64
    /// `Partner Share` per unit, in `Partner Share Currency`.
    package var partnerShare: Money
    /// `Extended Partner Share` = quantity × partner share.
    package var extendedPartnerShare: Money
    /// `Customer Price` per unit, in `Customer Currency`.
    package var customerPrice: Money

    package init(
        location: SourceLocation, productId: String, startDate: CalendarDate, endDate: CalendarDate, countryCode: String, quantity: Int64,
        partnerShare: Money, extendedPartnerShare: Money, customerPrice: Money
    ) {
        (
            self.location, self.productId, self.startDate, self.endDate, self.countryCode, self.quantity, self.partnerShare,
            self.extendedPartnerShare, self.customerPrice
        ) = (location, productId, startDate, endDate, countryCode, quantity, partnerShare, extendedPartnerShare, customerPrice)
    }
}

/// A row of the payments summary (`financial_report.csv`): one region's currency for a fiscal month.
package struct PaymentLine: Sendable {
    package var location: SourceLocation
    /// The summary's period as its title names it, e.g. `September, 2014` (a fiscal month).
    package var period: String
    /// `Region (Currency)`, e.g. `Euro-Zone (EUR)`.
    package var region: String
    package var units: Int64
    /// `Earned` in the region's currency.
    package var earned: Money
    /// `Withholding Tax` (negative) in the region's currency.
    package var withholdingTax: Money
    /// `Exchange Rate`: bank currency per region currency, as exact decimal text (`0.80030`).
    package var exchangeRate: String
    /// `Proceeds` in the bank currency.
    package var proceeds: Money

    package init(
        location: SourceLocation, period: String, region: String, units: Int64, earned: Money, withholdingTax: Money, exchangeRate: String,
        proceeds: Money
    ) {
        (self.location, self.period, self.region, self.units, self.earned, self.withholdingTax, self.exchangeRate, self.proceeds) = (
            location, period, region, units, earned, withholdingTax, exchangeRate, proceeds
        )
    }
}
