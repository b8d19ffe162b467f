import IAPAuditModel

/// Reads one line of a Sales and Trends report (or of the legacy daily sales report) into its record;
/// throws `IngestError` with the column and the reason when a value cannot be read exactly.
enum SalesReportReaders {
    /// A Summary Sales or legacy daily sales line. The legacy layout names its columns otherwise
    /// (`Vendor Identifier`, `Royalty Price`, `Royalty Currency`…): the first name the header has is read.
    static func salesLine(_ l: ReportLine, at location: SourceLocation) throws -> SalesReportLine {
        let units = try l.requiredCount("Units")
        let proceeds = try l.requiredMoney("Developer Proceeds", "Royalty Price")
        let price = try l.requiredMoney("Customer Price")
        let begin = try l.requiredDate("Begin Date")
        let end = try l.requiredDate("End Date")
        try ReportValue.checkOrder(begin, end, columns: ("Begin Date", "End Date"))
        return SalesReportLine(
            location: location, layout: l.header.layout == .legacyDailySales ? .legacyDailySales : .summarySales,
            provider: l.text("Provider"), providerCountry: l.text("Provider Country"), sku: l.text("SKU", "Vendor Identifier"),
            developer: l.text("Developer", "Artist / Show"), title: l.text("Title", "Title / Episode / Season"), version: l.text("Version"),
            productTypeIdentifier: l.text("Product Type Identifier"), units: units, developerProceedsMilliunits: proceeds,
            proceedsCurrency: try l.currency(
                of: proceeds, amountColumn: ["Developer Proceeds", "Royalty Price"], "Currency of Proceeds", "Royalty Currency"),
            developerProceedsTotalMilliunits: try ReportValue.times(
                units, abs(proceeds), ("Units", l.column(["Developer Proceeds", "Royalty Price"]))),
            beginDate: begin, endDate: end, customerCurrency: try l.currency("Customer Currency") ?? l.required("Customer Currency"),
            countryCode: try l.country("Country Code"), appleIdentifier: l.text("Apple Identifier"), customerPriceMilliunits: price,
            customerPriceTotalMilliunits: try ReportValue.times(units, abs(price), ("Units", "Customer Price")),
            promoCode: l.text("Promo Code"), parentIdentifier: l.text("Parent Identifier"), subscription: l.text("Subscription"),
            period: l.text("Period"), category: l.text("Category"), cmb: l.text("CMB"), device: l.text("Device"),
            supportedPlatforms: l.text("Supported Platforms"), proceedsReason: l.text("Proceeds Reason"),
            preservedPricing: l.text("Preserved Pricing"), client: l.text("Client"), orderType: l.text("Order Type"))
    }

    /// A Subscription report line: prices and counts of active subscriptions (no total: not sales).
    static func subscriptionLine(_ l: ReportLine, at location: SourceLocation) throws -> SubscriptionReportLine {
        let price = try l.requiredMoney("Customer Price")
        let proceeds = try l.requiredMoney("Developer Proceeds")
        let counts = try activeCounts(l)
        return SubscriptionReportLine(
            location: location, appName: l.text("App Name"), appAppleId: l.text("App Apple ID"),
            subscriptionName: l.text("Subscription Name"), subscriptionAppleId: l.text("Subscription Apple ID"),
            subscriptionGroupId: l.text("Subscription Group ID"),
            standardSubscriptionDuration: l.text("Standard Subscription Duration", "Subscription Duration"),
            promotionalOfferName: l.text("Promotional Offer Name", "Subscription Offer Name"),
            promotionalOfferId: l.text("Promotional Offer ID"), customerPriceMilliunits: price,
            customerCurrency: try l.currency("Customer Currency") ?? l.required("Customer Currency"),
            developerProceedsMilliunits: proceeds,
            proceedsCurrency: try l.currency(of: proceeds, amountColumn: ["Developer Proceeds"], "Proceeds Currency"),
            state: l.text("State"), preservedPricing: l.text("Preserved Pricing"), proceedsReason: l.text("Proceeds Reason"),
            client: l.text("Client"), device: l.text("Device"), country: try l.country("Country"),
            activeStandardPriceSubscriptions: counts[0], activeFreeTrialIntroductoryOfferSubscriptions: counts[1],
            activePayUpFrontIntroductoryOfferSubscriptions: counts[2], activePayAsYouGoIntroductoryOfferSubscriptions: counts[3],
            freeTrialPromotionalOfferSubscriptions: counts[4], payUpFrontPromotionalOfferSubscriptions: counts[5],
            payAsYouGoPromotionalOfferSubscriptions: counts[6], freeTrialOfferCodeSubscriptions: counts[7],
            payUpFrontOfferCodeSubscriptions: counts[8], payAsYouGoOfferCodeSubscriptions: counts[9], marketingOptIns: counts[10],
            billingRetry: counts[11], gracePeriod: counts[12])
    }

    /// The Subscription report's count columns, in `SubscriptionReportLine`'s order.
    static let countColumns = [
        "Active Standard Price Subscriptions", "Active Free Trial Introductory Offer Subscriptions",
        "Active Pay Up Front Introductory Offer Subscriptions", "Active Pay As You Go Introductory Offer Subscriptions",
        "Free Trial Promotional Offer Subscriptions", "Pay Up Front Promotional Offer Subscriptions",
        "Pay As You Go Promotional Offer Subscriptions", "Free Trial Offer Code Subscriptions", "Pay Up Front Offer Code Subscriptions",
        "Pay As You Go Offer Code Subscriptions", "Marketing Opt-Ins", "Billing Retry", "Grace Period",
    ]

    private static func activeCounts(_ l: ReportLine) throws -> [Int64?] {
        try countColumns.map { column in try l.text(column).map { try ReportValue.wholeNumber($0, column: column) } }
    }

    /// A Subscription Event report line (no amounts).
    static func eventLine(_ l: ReportLine, at location: SourceLocation) throws -> SubscriptionEventLine {
        SubscriptionEventLine(
            location: location, eventDate: try l.requiredDate("Event Date"), event: try l.required("Event"), appName: l.text("App Name"),
            appAppleId: l.text("App Apple ID"), subscriptionName: l.text("Subscription Name"),
            subscriptionAppleId: l.text("Subscription Apple ID"), subscriptionGroupId: l.text("Subscription Group ID"),
            standardSubscriptionDuration: l.text("Standard Subscription Duration", "Subscription Duration"),
            subscriptionOfferType: l.text("Subscription Offer Type", "Introductory Price Type"),
            subscriptionOfferDuration: l.text("Subscription Offer Duration", "Introductory Price Duration"),
            marketingOptInDuration: l.text("Marketing Opt-In Duration"), marketingOptIn: l.text("Marketing Opt-In"),
            promotionalOfferName: l.text("Promotional Offer Name", "Subscription Offer Name"),
            promotionalOfferId: l.text("Promotional Offer ID"), consecutivePaidPeriods: try l.count("Consecutive Paid Periods"),
            originalStartDate: try l.date("Original Start Date"), state: l.text("State"),
            previousSubscriptionName: l.text("Previous Subscription Name"),
            previousSubscriptionAppleId: l.text("Previous Subscription Apple ID"),
            daysBeforeCanceling: try l.count("Days Before Canceling"), cancellationReason: l.text("Cancellation Reason"),
            daysCanceled: try l.count("Days Canceled"), quantity: try l.requiredCount("Quantity"),
            preservedPricing: l.text("Preserved Pricing"), proceedsReason: l.text("Proceeds Reason"), client: l.text("Client"),
            device: l.text("Device"), country: try l.country("Country"))
    }

    /// A Subscriber report line: a refund has a negative `Customer Price`, so the totals take the sign of
    /// the per-unit amounts (|Units| × amount).
    static func subscriberLine(_ l: ReportLine, at location: SourceLocation) throws -> SubscriberReportLine {
        let units = try l.requiredCount("Units")
        let price = try l.requiredMoney("Customer Price")
        let proceeds = try l.requiredMoney("Developer Proceeds")
        return SubscriberReportLine(
            location: location, eventDate: try l.requiredDate("Event Date"), appName: l.text("App Name"),
            appAppleId: l.text("App Apple ID"), subscriptionName: l.text("Subscription Name"),
            subscriptionAppleId: l.text("Subscription Apple ID"), subscriptionGroupId: l.text("Subscription Group ID"),
            standardSubscriptionDuration: l.text("Standard Subscription Duration", "Subscription Duration"),
            subscriptionOfferName: l.text("Subscription Offer Name"), promotionalOfferId: l.text("Promotional Offer ID"),
            subscriptionOfferType: l.text("Subscription Offer Type", "Introductory Price Type"),
            subscriptionOfferDuration: l.text("Subscription Offer Duration", "Introductory Price Duration"),
            marketingOptInDuration: l.text("Marketing Opt-In Duration"), customerPriceMilliunits: price,
            customerCurrency: try l.currency("Customer Currency") ?? l.required("Customer Currency"),
            developerProceedsMilliunits: proceeds,
            proceedsCurrency: try l.currency(of: proceeds, amountColumn: ["Developer Proceeds"], "Proceeds Currency"),
            subscriberId: l.text("Subscriber ID"), subscriberIdReset: l.text("Subscriber ID Reset"), refund: l.text("Refund"),
            purchaseDate: try l.date("Purchase Date"), units: units,
            customerPriceTotalMilliunits: try ReportValue.times(abs(units), price, ("Units", "Customer Price")),
            developerProceedsTotalMilliunits: try ReportValue.times(abs(units), proceeds, ("Units", "Developer Proceeds")),
            preservedPricing: l.text("Preserved Pricing"), proceedsReason: l.text("Proceeds Reason"), client: l.text("Client"),
            device: l.text("Device"), country: try l.country("Country"))
    }
}
