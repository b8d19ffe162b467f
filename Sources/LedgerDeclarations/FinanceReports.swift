// App Store Connect's Payments and Financial Reports as ledger records (docs/inputs.md §10): one record
// per report line. Not transaction evidence: no reconciliation fact is made from them.

let financialReportLine = reportRecord(
    "financial_report_line",
    doc: """
        One row of a financial report (one region, or all regions in one file): the settled sales or returns
        of one product, country of sale and price in one fiscal month.

        Source: Apple, "Financial Reports" (App Store Connect Help). `Partner Share` (always positive) and
        `Customer Price` are per unit; `Extended Partner Share` is `Quantity` × `Partner Share`, checked: a row
        where it is not is rejected. `R` rows (returns) have a negative `Quantity` and `Customer Price`.
        """,
    fields: [
        reportDate(
            "Start Date", required: true, doc: ["`Start Date`: ISO date, the first day of the fiscal month (Apple's fiscal calendar)."]),
        reportDate("End Date", required: true, doc: ["`End Date`: ISO date, the fiscal month's last day."]),
        reportText("UPC"), reportText("ISRC/ISBN"), reportText("Vendor Identifier", doc: ["The developer's SKU or product id."]),
        reportCount("Quantity", required: true, doc: ["`Quantity`: units, negative for returns."]),
        reportMoney("Partner Share", doc: ["`Partner Share`: proceeds per unit, milliunits of `partner_share_currency`."]),
        reportMoney(
            "Extended Partner Share",
            doc: ["`Extended Partner Share`: the row's proceeds, milliunits of `partner_share_currency` (= quantity × partner share)."]),
        reportText("Partner Share Currency", required: true, doc: ["ISO 4217 code."]),
        reportText("Sales or Return", required: true, doc: ["`S` a sale, `R` a return."]), reportText("Apple Identifier"),
        reportText("Artist/Show/Developer/Author", as: ("developer", "developer")), reportText("Title"),
        reportText("Label/Studio/Network/Developer/Publisher", as: ("label", "label")), reportText("Grid"),
        reportText("Product Type Identifier"), reportText("ISAN/Other Identifier"),
        reportText("Country Of Sale", doc: ["ISO 3166-1 alpha-2 code of the storefront."]), reportText("Pre-order Flag"),
        reportText("Promo Code"),
        reportMoney(
            "Customer Price", doc: ["`Customer Price` per unit (taxes included), milliunits of `customer_currency`, as Apple wrote it."]),
        reportText("Customer Currency", doc: ["ISO 4217 code."]),
        lineTotal("Customer Price", count: "Quantity", currency: "customer_currency"),
    ])

let financialReportTotal = reportRecord(
    "financial_report_total",
    doc: """
        A total a financial report states after its rows: `Total_Rows`, `Total_Amount`, `Total_Units`, or a row
        of the all-regions report's summary table. Each was checked against the report's rows when read: a
        total the rows do not add up to is rejected (its `file:line` names the report), never stored.
        """,
    fields: [
        FieldDeclaration(
            "kind", "kind", .enumeration(type: "FinancialReportTotalKind", required: true),
            doc: ["`total_rows`, `total_amount`, `total_units` or `country_summary`."]),
        reportCount("Total_Rows", as: ("rows", "rows"), doc: ["`Total_Rows`: how many rows the report holds."]),
        reportCount(
            "Total_Units", as: ("units", "units"),
            doc: ["`Total_Units`: the `Quantity` of its sales (`S`) rows; a summary row's `Quantity`."]),
        reportMoney(
            "Total_Amount", as: ("amountMilliunits", "amount_milliunits"), required: false,
            doc: ["`Total_Amount` (a summary row: `Extended Partner Share`) in milliunits of `currency`."]),
        reportText("Partner Share Currency", as: ("currency", "currency"), doc: ["The currency of `amount_milliunits` (ISO 4217)."]),
        reportText("Country Of Sale", doc: ["A summary row's country (alpha-2)."]),
    ])

let paymentSummaryLine = reportRecord(
    "payment_summary_line",
    doc: """
        One line of the payments summary (`financial_report.csv` from Payments and Financial Reports): a
        region's earnings in its currency and what was paid for them in the bank's currency, the total paid,
        or where it was paid.

        Amounts are milliunits of `currency` (a region) or `bank_currency` (`proceeds`, the total); the `total`
        line was checked against the paid regions' proceeds when read.
        """,
    fields: [
        FieldDeclaration(
            "kind", "kind", .enumeration(type: "PaymentSummaryLineKind", required: true),
            doc: ["`region`, `total` or `paid_to`."]),
        reportText("period", doc: ["The fiscal month as the title line names it (`September, 2014`), as Apple wrote it."]),
        reportText("Region (Currency)", as: ("region", "region"), doc: ["The region's name (`Euro-Zone`), without its currency."]),
        reportText("currency", doc: ["The region's currency (ISO 4217), from `Region (Currency)`."]),
        FieldDeclaration(
            "paid", "paid", .bool(required: false),
            doc: [
                "A region row before the first empty line (paid this month); false after it (earnings below the payment",
                "threshold, carried to a later month); nil for other lines.",
            ]),
        reportCount("Units Sold"),
    ]
        + ["Earned", "Pre-Tax Subtotal", "Input Tax", "Adjustments", "Withholding Tax", "Total Owed", "Balance"].map {
            reportMoney(
                $0, required: false,
                doc: ["`\($0)`: milliunits of `currency`" + ($0 == "Balance" ? " (only in a summary with the column)." : ".")])
        } + [
            reportText("Exchange Rate", doc: ["`Exchange Rate` as Apple wrote it (`0.80030`: up to 6 decimals, kept as exact text)."]),
            reportMoney("Proceeds", required: false, doc: ["Proceeds paid (a total line: the total paid), milliunits of `bank_currency`."]),
            reportText("Bank Account Currency", as: ("bankCurrency", "bank_currency"), doc: ["ISO 4217 code of the bank account."]),
            reportText("paid_to", as: ("paidTo", "paid_to"), doc: ["A `paid_to` line's text (`Paid to FICTIONAL BANK -****1299`)."]),
        ])
