// App Store Connect's Sales and Trends reports as ledger records (docs/inputs.md §9): one record per
// report line, columns read by Apple's header names. Not transaction evidence: no reconciliation fact
// is made from them (the finance close reads these tables).

let salesReportLine = reportRecord(
    "sales_report_line",
    doc: """
        One line of a Sales and Trends Summary Sales report (`SALES`/`SUMMARY`, TSV, versions 1_0…1_3) or of
        iTunes Connect's legacy daily sales report (2009–2010): units of one product, country, price and
        currency sold on the report's days.

        Source: Apple, "Summary Sales Report" (App Store Connect Help). `Developer Proceeds` and `Customer
        Price` are per unit; negative `Units` are refunds. `Begin Date`/`End Date` are calendar days in
        Pacific Time. The legacy layout's `Vendor Identifier`, `Artist / Show`, `Title / Episode / Season`,
        `Royalty Price` and `Royalty Currency` fill `sku`, `developer`, `title`, `developer_proceeds` and
        `proceeds_currency`.
        """,
    fields: [
        FieldDeclaration(
            "layout", "layout", .enumeration(type: "SalesReportLayout", required: true),
            doc: ["Which layout the line was read from (`summary_sales`, `legacy_daily_sales`), told by its header."]),
        reportText("Provider"), reportText("Provider Country"),
        reportText("SKU", doc: ["`SKU` (legacy: `Vendor Identifier`): the developer's product identifier."]),
        reportText("Developer"), reportText("Title"), reportText("Version"),
        reportText(
            "Product Type Identifier", doc: ["`Product Type Identifier`: `1` app, `7` update, `IA1` in-app purchase, `IAY` auto-renewable…"]
        ),
        reportCount("Units", required: true, doc: ["`Units`: negative for refunds."]),
        reportMoney(
            "Developer Proceeds",
            doc: ["`Developer Proceeds` (legacy: `Royalty Price`) per unit, milliunits of `proceeds_currency`, as Apple wrote it."]),
        reportText(
            "Currency of Proceeds", as: ("proceedsCurrency", "proceeds_currency"),
            doc: ["`Currency of Proceeds` (legacy: `Royalty Currency`), ISO 4217; nil when empty (only with zero proceeds)."]),
        lineTotal("Developer Proceeds", count: "Units", currency: "proceeds_currency"),
        reportDate("Begin Date", required: true, doc: ["`Begin Date`: ISO date, a calendar day in Pacific Time."]),
        reportDate("End Date", required: true, doc: ["`End Date`: ISO date, a calendar day in Pacific Time."]),
        reportText("Customer Currency", required: true, doc: ["ISO 4217 code."]),
        reportText("Country Code", doc: ["ISO 3166-1 alpha-2 code of the storefront."]), reportText("Apple Identifier"),
        reportMoney(
            "Customer Price", doc: ["`Customer Price` per unit (taxes included), milliunits of `customer_currency`, as Apple wrote it."]),
        lineTotal("Customer Price", count: "Units", currency: "customer_currency"),
        reportText("Promo Code"), reportText("Parent Identifier", doc: ["The app's SKU, for an in-app purchase."]),
        reportText("Subscription", doc: ["`New` or `Renewal` for auto-renewable subscriptions."]),
        reportText("Period", doc: ["The subscription's duration (`7 Days`, `1 Month`…)."]),
    ] + ["Category", "CMB", "Device", "Supported Platforms", "Proceeds Reason", "Preserved Pricing", "Client"].map { reportText($0) } + [
        reportText("Order Type", doc: ["`Order Type` (1_1+): `Pre-order`, `Pay As You Go Intro Offer`…"])
    ])

let subscriptionReportLine = reportRecord(
    "subscription_report_line",
    doc: """
        One line of a Sales and Trends Subscription report: how many subscriptions of one price, country and
        offer were active at the end of the report's day (a snapshot, not sales: no line total is made).

        Source: Apple, "Subscription Report" (App Store Connect Help). The report holds no date: its day is
        only in the name Apple gave the file, which iap-audit does not read. Counts of a column a version
        lacks are nil.
        """,
    fields: subscriptionIdentity + promotionalOffer + subscriptionPrices(per: "subscription period") + [reportText("State")]
        + subscriptionSale + activeSubscriptionCounts)

/// The Subscription report's counts, one column each (nil when the report's version has no such column).
let activeSubscriptionCounts: [FieldDeclaration] = [
    "Active Standard Price Subscriptions", "Active Free Trial Introductory Offer Subscriptions",
    "Active Pay Up Front Introductory Offer Subscriptions", "Active Pay As You Go Introductory Offer Subscriptions",
    "Free Trial Promotional Offer Subscriptions", "Pay Up Front Promotional Offer Subscriptions",
    "Pay As You Go Promotional Offer Subscriptions", "Free Trial Offer Code Subscriptions", "Pay Up Front Offer Code Subscriptions",
    "Pay As You Go Offer Code Subscriptions", "Marketing Opt-Ins", "Billing Retry", "Grace Period",
].map { reportCount($0) }

let subscriptionEventLine = reportRecord(
    "subscription_event_line",
    doc: """
        One line of a Sales and Trends Subscription Event report: how many times one event (`Subscribe`,
        `Renew`, `Cancel`, `Refund`…) happened on a day to subscriptions of one kind, offer and country.

        Source: Apple, "Subscription Event Report" (App Store Connect Help). No amounts.
        """,
    fields: [
        reportDate("Event Date", required: true, doc: ["`Event Date`: ISO date (Pacific Time)."]), reportText("Event", required: true),
    ] + subscriptionIdentity + subscriptionOffer + [reportText("Marketing Opt-In")] + promotionalOffer + [
        reportCount("Consecutive Paid Periods"),
        reportDate("Original Start Date", doc: ["ISO date the subscription began."]),
        reportText("State"), reportText("Previous Subscription Name"), reportText("Previous Subscription Apple ID"),
        reportCount("Days Before Canceling"), reportText("Cancellation Reason"), reportCount("Days Canceled"),
        reportCount("Quantity", required: true, doc: ["`Quantity`: how many times the event happened."]),
    ] + subscriptionSale)

let subscriberReportLine = reportRecord(
    "subscriber_report_line",
    doc: """
        One line of a Sales and Trends Subscriber report: one paid subscription event of one (anonymous)
        subscriber on a day, with its price and proceeds.

        Source: Apple, "Subscriber Report" (App Store Connect Help). A refund has `Refund` `Yes` and a
        negative `Customer Price`: the line totals take their sign from the per-unit amount.
        """,
    fields: [reportDate("Event Date", required: true, doc: ["`Event Date`: ISO date (Pacific Time)."])] + subscriptionIdentity
        + [reportText("Subscription Offer Name"), reportText("Promotional Offer ID")] + subscriptionOffer
        + subscriptionPrices(per: "unit", refund: " (negative: a refund)") + [
            reportText("Subscriber ID", doc: ["Apple's anonymous id of the subscriber."]), reportText("Subscriber ID Reset"),
            reportText("Refund", doc: ["`Yes` for a refund."]),
            reportDate("Purchase Date", doc: ["`Purchase Date` of a refunded purchase: ISO date."]),
            reportCount("Units", required: true),
            lineTotal(
                "Customer Price", count: "Units", currency: "customer_currency",
                doc: ["|`Units`| × `Customer Price` in milliunits of `customer_currency`, exact: negative for a refund."]),
            lineTotal(
                "Developer Proceeds", count: "Units", currency: "proceeds_currency",
                doc: ["|`Units`| × `Developer Proceeds` in milliunits of `proceeds_currency`, exact."]),
        ] + subscriptionSale)
