// The ledger's record kinds, each declared once. After a change here run
//   swift run generate-ledger-code
// which rewrites Sources/IAPAuditModel/Generated/, Sources/IAPAuditStore/Generated/ and
// Tests/IAPAuditTests/Generated/ (a test fails while they are stale). docs/architecture.md: "Add a field".

/// Every record kind, in the order of `RecordBatch` and of the tables.
public let recordDeclarations: [RecordDeclaration] = [
    clientReport, serverRequest, appleRecord, appleTransaction, pendingRenewal,
    // App Store Connect's reports (SalesReports.swift, FinanceReports.swift): not transaction evidence.
    salesReportLine, subscriptionReportLine, subscriptionEventLine, subscriberReportLine, financialReportLine, financialReportTotal,
    paymentSummaryLine,
]

let clientReport = RecordDeclaration(
    table: "client_report", type: "ClientReport", row: "ClientRow", batchProperty: "clientReports", key: .fileLine(column: "record_id"),
    doc: [
        "One transaction as the iOS client reported it to the app's backend.",
        "",
        "Source: the app's client report log (JSON Lines or CSV; docs/inputs.md §1).",
    ],
    fields: [
        FieldDeclaration(
            "ts", "tsMs", .integer(swift: "Int64", required: true), column: "ts_ms", doc: ["`ts`: milliseconds since 1970-01-01 UTC."]),
        FieldDeclaration("user_id", "userId", .text(required: false)),
        FieldDeclaration("device_id", "deviceId", .text(required: false)),
        FieldDeclaration(
            "transaction_id", "transactionId", .text(required: false),
            doc: ["`transaction_id`: exact text; nil for failed and deferred transactions."]),
        FieldDeclaration("original_transaction_id", "originalTransactionId", .text(required: false)),
        FieldDeclaration("product_id", "productId", .text(required: false)),
        FieldDeclaration("state", "state", .enumeration(type: "ClientState", required: true), doc: ["StoreKit's transaction state."]),
        FieldDeclaration("error_code", "errorCode", .integer(swift: "Int", required: false), doc: ["SKError code (2 = cancelled)."]),
        FieldDeclaration("quantity", "quantity", .integer(swift: "Int", required: false)),
    ])

let serverRequest = RecordDeclaration(
    table: "server_request", type: "ServerRequest", row: "ServerRow", batchProperty: "serverRequests", key: .fileLine(column: "record_id"),
    doc: [
        "One record of the app server's transaction log: a verification request it handled,",
        "or (`event = revoke`) an entitlement it took back.",
        "",
        "Source: the app server's log (JSON Lines or CSV; docs/inputs.md §2).",
    ],
    fields: [
        FieldDeclaration(
            "ts", "tsMs", .integer(swift: "Int64", required: true), column: "ts_ms", doc: ["`ts`: milliseconds since 1970-01-01 UTC."]),
        FieldDeclaration("request_id", "requestId", .text(required: true)),
        FieldDeclaration("event", "event", .enumeration(type: "ServerEvent", required: true)),
        FieldDeclaration("user_id", "userId", .text(required: false)),
        FieldDeclaration("device_id", "deviceId", .text(required: false)),
        FieldDeclaration(
            "transaction_ids", "transactionIds", .idList(required: true),
            doc: ["Ids the client posted, exact text (sometimes original transaction ids)."]),
        FieldDeclaration(
            "credited_transaction_ids", "creditedTransactionIds", .idList(required: false),
            doc: ["What the server actually credited, when it logs it."]),
        FieldDeclaration(
            "credited_quantity", "creditedQuantities", .quantities,
            doc: [
                "`credited_quantity`: how many units the server credited, by id: a number in the log applies to every",
                "id the record credits, an object `{\"T\": n}` gives each id its own (semantics.md rule 20); nil when not logged.",
            ]),
        FieldDeclaration("restore", "restore", .bool(required: true)),
        FieldDeclaration("receipt_sha256", "receiptSha256", .text(required: false)),
        FieldDeclaration(
            "verify_status", "verifyStatus", .integer(swift: "Int", required: false),
            doc: ["The status the server logged; never proof (semantics.md rule 3)."]),
        FieldDeclaration(
            "environment", "environment", .text(required: false), doc: ["The environment the server logged as having answered."]),
        FieldDeclaration("granted", "granted", .bool(required: true)),
        FieldDeclaration(
            "latency_ms", "latencyMs", .integer(swift: "Int64", required: false), doc: ["Round trip to Apple in milliseconds."]),
    ])

let appleRecord = RecordDeclaration(
    table: "apple_record", type: "AppleRecord", row: "AppleRecordRow", batchProperty: "appleRecords", key: .fileLine(column: "record_id"),
    doc: [
        "One record Apple made: a legacy `verifyReceipt` answer, a JWS signed transaction, renewal info or",
        "app transaction, an App Store Server API response, a Server Notification (V1 or V2), or an app",
        "receipt (PKCS#7 or iOS 6), with the transactions it lists (`items`).",
        "",
        "Sources: Apple, \"verifyReceipt\" → `responseBody` (wrapped by the server as",
        "`{\"request_id\", \"received_at\", \"response\": {…}}`, or bare); \"App Store Server API\";",
        "\"App Store Server Notifications\"; \"Receipt Fields\" (docs/inputs.md §3–8).",
    ],
    fields: [
        FieldDeclaration(
            "request_id", "requestId", .text(required: false),
            doc: ["`request_id` of the server request it answered; nil for a bare record."]),
        FieldDeclaration(
            "received_at", "receivedAtMs", .integer(swift: "Int64", required: false), column: "received_at_ms",
            doc: ["`received_at`: when the server received it, milliseconds since 1970 UTC; nil for bare ones."]),
        FieldDeclaration(
            "order_id", "orderId", .text(required: false),
            doc: [
                "`order_id` of a wrapped Look Up Order ID answer (`{\"order_id\", \"received_at\", \"response\"}`): the Apple",
                "order id on the customer's invoice that the App Store Server API was asked about; nil otherwise.",
            ]),
        FieldDeclaration(
            "transaction_id", "askedTransactionId", .text(required: false), column: "asked_transaction_id",
            doc: [
                "`transaction_id` of a wrapped Get Transaction Info answer (`{\"transaction_id\", \"received_at\", \"environment\",",
                "\"response\"}`, as `iap-audit ask-apple` writes it): the id the App Store Server API was asked about; nil otherwise.",
            ]),
        FieldDeclaration(
            "status", "status", .integer(swift: "Int", required: true),
            doc: [
                "`status`: 0, or 21000–21199 (see `VerifyStatus`); an App Store Server API error body's `errorCode`.",
                "Apple sends a number or a string.",
            ]),
        FieldDeclaration(
            "environment", "environment", .text(required: false),
            doc: ["`environment`: `Production`, `Sandbox`, `Xcode`, `LocalTesting` as Apple sent it; nil when absent."]),
        FieldDeclaration(
            "is-retryable", "isRetryable", .bool(required: false), column: "is_retryable",
            doc: ["`is-retryable`: only sent with 211xx statuses."]),
        FieldDeclaration(
            "receipt.bundle_id", "bundleId", .text(required: false), column: "bundle_id",
            doc: ["`receipt.bundle_id` (iOS 7+) or `receipt.bid` (iOS 6); a JWS payload's `bundleId`."]),
        FieldDeclaration(
            "receipt.receipt_type", "receiptType", .text(required: false), column: "receipt_type",
            doc: ["`receipt.receipt_type`: `Production`, `ProductionSandbox`, `Sandbox`, `ProductionVPP`…"]),
        FieldDeclaration(
            "unified_receipt.environment", "receiptEnvironment", .text(required: false), column: "receipt_environment",
            doc: [
                "`unified_receipt.environment` of a Notification V1 body (`Production`, `Sandbox`), whose top-level",
                "`environment` is `environment`: when the two disagree, the record's signals disagree (semantics.md rule 24).",
                "Nil for every other record.",
            ]),
        FieldDeclaration(
            "receipt.receipt_creation_date", "receiptCreationDateMs", .integer(swift: "Int64", required: false),
            column: "receipt_creation_date_ms",
            doc: ["`receipt.receipt_creation_date(_ms)`: when the App Store made the receipt, ms since 1970 UTC."]),
        FieldDeclaration(
            "receipt.request_date", "requestDateMs", .integer(swift: "Int64", required: false), column: "request_date_ms",
            doc: ["`receipt.request_date(_ms)`: when the verifyReceipt request was answered, ms since 1970 UTC."]),
        FieldDeclaration(
            "items", "items", .parts(type: "AppleTransaction"), default: "[]",
            doc: ["The transactions it lists, de-duplicated by `transaction_id` (first occurrence order)."]),
        FieldDeclaration(
            "pending_renewal_info", "pendingRenewals", .parts(type: "PendingRenewal"), default: "[]",
            doc: ["`pending_renewal_info` entries, or a JWS renewal info (auto-renewable subscriptions only)."]),
        FieldDeclaration(
            "raw_json", "rawJSON", .rawText, default: "\"\"",
            doc: [
                "The record as read (the `response` object of a wrapped line); not stored for a JSON Lines",
                "record, whose text is its line of the input (`file:line`).",
            ]),
        FieldDeclaration(
            "source", "source", .enumeration(type: "EvidenceSource", required: true), default: ".verifyReceipt",
            doc: ["The Apple format this record was read from."]),
        FieldDeclaration(
            "signature", "signature", .signature, default: ".notChecked",
            doc: ["The record's own signature (for a notification: combined with its nested JWS)."]),
        FieldDeclaration(
            "signedDate", "signedDateMs", .integer(swift: "Int64", required: false), column: "signed_date_ms",
            doc: ["`signedDate` of a JWS payload or notification, or a receipt's creation date: milliseconds since 1970 UTC."]),
        FieldDeclaration(
            "notification", "notification", .group(notificationInfo), doc: ["Set for notifications (V1 and V2)."]),
        FieldDeclaration(
            "errorMessage", "errorMessage", .text(required: false), column: "error_message",
            doc: ["`errorMessage` of an App Store Server API error body (`status` holds its `errorCode`)."]),
        FieldDeclaration(
            "notes", "notes", .jsonList, default: "[]",
            doc: [
                "What could not be read inside the record without rejecting it, e.g. a nested",
                "`signedTransactionInfo` that is a placeholder, not a compact JWS.",
            ]),
    ])

let notificationInfo = GroupDeclaration(
    type: "NotificationInfo", columnPrefix: "notification_", presentWhen: "notificationType",
    doc: [
        "The notification fields of an App Store Server Notification (V2 `responseBodyV2DecodedPayload`,",
        "or V1 `notification_type`).",
        "",
        "Source: Apple, \"App Store Server Notifications V2\" → `responseBodyV2DecodedPayload`; V1 →",
        "`responseBody`. Values are kept raw: types Apple adds later still decode.",
    ],
    fields: [
        FieldDeclaration(
            "notificationUUID", "notificationUUID", .text(required: false), column: "uuid",
            doc: ["`notificationUUID` (V2); nil for V1, which has none. Apple retries a delivery with the same UUID."]),
        FieldDeclaration(
            "notificationType", "notificationType", .text(required: true), column: "type",
            doc: ["`notificationType` (V2: `REFUND`, `DID_RENEW`, `TEST`…) or `notification_type` (V1: `CANCEL`, `DID_RENEW`…)."]),
        FieldDeclaration(
            "subtype", "subtype", .text(required: false), doc: ["`subtype` (V2 only): `INITIAL_BUY`, `SUMMARY`, `VOLUNTARY`…"]),
        FieldDeclaration("version", "version", .text(required: false), doc: ["`version` (V2: `2.0`)."]),
        FieldDeclaration(
            "data.status", "status", .integer(swift: "Int", required: false), column: "status",
            doc: ["`data.status` (V2): the subscription status 1–5 at signing, when sent."]),
        FieldDeclaration(
            "summary", "hasSummary", .bool(required: true), default: "false", stored: false,
            doc: ["`summary` present (V2 RENEWAL_EXTENSION/SUMMARY bodies without `data`)."]),
    ])

let appleTransaction = RecordDeclaration(
    table: "apple_transaction", type: "AppleTransaction", row: "AppleTransactionRow", batchProperty: "appleTransactions",
    key: .part(parent: "record_id"),
    doc: [
        "One transaction as one Apple record lists it: an item of a verifyReceipt response's `receipt.in_app`,",
        "`latest_receipt_info` (array or single object) or `latest_expired_receipt_info`, an iOS 6 flat",
        "`receipt`, a JWS `JWSTransactionDecodedPayload`, or a PKCS#7 receipt's in-app purchase.",
        "",
        "Dates are milliseconds since 1970 UTC from Apple's `*_ms` fields (JWS: numbers), else parsed from",
        "the text form (`Etc/GMT` or `America/Los_Angeles`).",
    ],
    merges: true,
    fields: [
        FieldDeclaration("transaction_id", "transactionId", .text(required: true)),
        FieldDeclaration("original_transaction_id", "originalTransactionId", .text(required: false)),
        FieldDeclaration("product_id", "productId", .text(required: false)),
        FieldDeclaration("quantity", "quantity", .integer(swift: "Int", required: false)),
        FieldDeclaration("purchase_date", "purchaseDateMs", .integer(swift: "Int64", required: false), column: "purchase_date_ms"),
        FieldDeclaration(
            "original_purchase_date", "originalPurchaseDateMs", .integer(swift: "Int64", required: false),
            column: "original_purchase_date_ms"),
        FieldDeclaration("expires_date", "expiresDateMs", .integer(swift: "Int64", required: false), column: "expires_date_ms"),
        FieldDeclaration(
            "cancellation_date", "cancellationDateMs", .integer(swift: "Int64", required: false), column: "cancellation_date_ms",
            doc: ["`cancellation_date(_ms)` / JWS `revocationDate`: Apple refunded or revoked the purchase."]),
        FieldDeclaration(
            "cancellation_reason", "cancellationReason", .text(required: false), doc: ["`cancellation_reason` / JWS `revocationReason`."]),
        FieldDeclaration("web_order_line_item_id", "webOrderLineItemId", .text(required: false)),
        FieldDeclaration(
            "in_app_ownership_type", "inAppOwnershipType", .text(required: false),
            doc: ["`in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`."]),
        FieldDeclaration("is_trial_period", "isTrialPeriod", .bool(required: false)),
        FieldDeclaration(
            "is_in_intro_offer_period", "isInIntroOfferPeriod", .bool(required: false),
            doc: ["`isInIntroOfferPeriod` / `is_in_intro_offer_period` (receipt field 1719)."]),
        FieldDeclaration(
            "bundleId", "bundleId", .text(required: false), column: "bundle_id",
            doc: ["JWS `bundleId` (the transaction's own); receipts carry it on the record."]),
        FieldDeclaration(
            "environment", "environment", .text(required: false),
            doc: ["JWS `environment` of this transaction (`Production`, `Sandbox`, `Xcode`, `LocalTesting`, raw otherwise)."]),
        FieldDeclaration(
            "type", "type", .text(required: false),
            doc: ["JWS `type`: `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`."]),
        FieldDeclaration(
            "revocationType", "revocationType", .text(required: false), column: "revocation_type",
            doc: ["JWS `revocationType`: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE` (raw when unknown)."]),
        FieldDeclaration(
            "revocationPercentage", "revocationPercentage", .integer(swift: "Int", required: false), column: "revocation_percentage",
            doc: ["JWS `revocationPercentage`: the refunded share in thousandths of a percent (50000 = 50 %)."]),
        FieldDeclaration(
            "price", "priceMilliunits", .integer(swift: "Int64", required: false), column: "price_milliunits",
            doc: ["JWS `price`: milliunits of `currency` (10990 = 10.99)."]),
        FieldDeclaration("currency", "currency", .text(required: false), doc: ["JWS `currency`: ISO 4217 code."]),
        FieldDeclaration("storefront", "storefront", .text(required: false), doc: ["JWS `storefront`: ISO 3166-1 alpha-3 country code."]),
        FieldDeclaration(
            "appAccountToken", "appAccountToken", .text(required: false), column: "app_account_token",
            doc: ["JWS `appAccountToken`: the UUID the app attached to the purchase."]),
        FieldDeclaration(
            "transactionReason", "transactionReason", .text(required: false), column: "transaction_reason",
            doc: ["JWS `transactionReason`: `PURCHASE` or `RENEWAL`."]),
        FieldDeclaration(
            "signedDate", "signedDateMs", .integer(swift: "Int64", required: false), column: "signed_date_ms",
            doc: ["JWS `signedDate`: milliseconds since 1970 UTC."]),
        FieldDeclaration(
            "signature", "signature", .signature, default: ".notChecked",
            doc: ["The signature of the JWS or receipt this transaction came from (`not_checked` for unsigned sources)."]),
        FieldDeclaration(
            "sections", "sections", .joinedList(separator: ","),
            doc: ["Where in the record it appeared, e.g. `in_app,latest_receipt_info`."]),
        FieldDeclaration(
            "notificationType", "notificationType", .text(required: false), column: "notification_type",
            doc: [
                "The type of the notification that listed it: V2 `notificationType` (`REFUND`, `REFUND_REVERSED`…), V1",
                "`notification_type`; for each entry of a Get Notification History page, that entry's own. Nil otherwise.",
            ]),
        FieldDeclaration(
            "subtype", "notificationSubtype", .text(required: false), column: "notification_subtype",
            doc: ["The V2 `subtype` of that notification (`INITIAL_BUY`, `VOLUNTARY`…); nil for V1 and when none."]),
    ])

let pendingRenewal = RecordDeclaration(
    table: "pending_renewal", type: "PendingRenewal", row: "PendingRenewalRow", batchProperty: "pendingRenewals",
    key: .part(parent: "record_id"),
    doc: [
        "One entry of a verifyReceipt response's `pending_renewal_info` (or a JWS renewal info): what will",
        "happen at the next renewal of an auto-renewable subscription.",
        "",
        "Source: Apple, \"verifyReceipt\" → `responseBody.Pending_renewal_info`; \"JWSRenewalInfoDecodedPayload\".",
        "Dates are milliseconds since 1970 UTC.",
    ],
    fields: [
        FieldDeclaration("original_transaction_id", "originalTransactionId", .text(required: false)),
        FieldDeclaration("product_id", "productId", .text(required: false)),
        FieldDeclaration("auto_renew_product_id", "autoRenewProductId", .text(required: false)),
        FieldDeclaration(
            "auto_renew_status", "autoRenewStatus", .integer(swift: "Int", required: false),
            doc: ["`auto_renew_status`: 1 renews, 0 the customer turned renewal off."]),
        FieldDeclaration(
            "expiration_intent", "expirationIntent", .integer(swift: "Int", required: false),
            doc: [
                "`expiration_intent`: 1 cancelled, 2 billing error, 3 price increase not agreed, 4 product",
                "unavailable, 5 unknown.",
            ]),
        FieldDeclaration("is_in_billing_retry_period", "isInBillingRetryPeriod", .bool(required: false)),
        FieldDeclaration(
            "grace_period_expires_date", "gracePeriodExpiresDateMs", .integer(swift: "Int64", required: false),
            column: "grace_period_expires_date_ms"),
    ])
