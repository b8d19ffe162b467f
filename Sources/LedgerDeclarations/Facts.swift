// The reconciliation facts, each kind declared once (see Records.swift for how to regenerate).
// The layouts are stored in `fact_chunk`: change one only with a `Schema.readerVersion` bump.

/// The streams facts are written to (`fact_chunk.stream`), in stored-number order: what keys each.
public let factStreams: [(name: String, doc: String)] = [
    ("summary", "One `FileFacts` summary per file (partition 0)."),
    ("requests", "Keyed by `request_id`: server-log lines (verify and revoke) and the Apple records that name a request."),
    ("transactions", "Keyed by transaction id: client reports, revokes, and listings of Apple records linked to no request."),
    ("notifications", "Keyed by `notificationUUID`: which deliveries of a notification there are."),
    ("purchases", "Keyed by `original_transaction_id`: the ids Apple lists under one original id (one purchase, many ids)."),
]

/// Every fact kind, in kind-byte order.
public let factDeclarations: [FactDeclaration] = [
    requestLineFact, linkedResponseFact, clientFact, revokeFact, listingFact, carrierFact, notificationFact, purchaseFact,
    summaryFact, linkFact, holdingFact, ownerFact, lookupFact,
]

let requestLineFact = FactDeclaration(
    kind: "requestLine", code: 1, type: "RequestLineFact", stream: "requests",
    doc: "One server-log line (verify or revoke), keyed by `request_id`.",
    fields: [
        FactField("fileId", .file), FactField("line", .u32), FactField("tsMs", .i64, "`ts`, ms since 1970 UTC"),
        FactField("isRevoke", .flags(["isRevoke"]), "`event: revoke`"),
        FactField("options", .flags(["restore", "granted"])),
        FactField("verifyStatus", .optionalInt, "the logged status (never proof)"),
        FactField("requestId", .requiredText), FactField("userId", .text), FactField("environment", .text, "as the server logged it"),
        FactField("posted", .list(.value(.requiredId), optional: false), "`transaction_ids`, as posted"),
        FactField("credited", .list(.value(.requiredId), optional: true), "`credited_transaction_ids`, when logged"),
        FactField(
            "creditedQuantities",
            .list(.record(type: "Quantity", fields: [FactField("id", .requiredId), FactField("quantity", .i64)]), optional: true),
            "`credited_quantity` by id, when logged"),
    ])

let linkedResponseFact = FactDeclaration(
    kind: "linkedResponse", code: 2, type: "LinkedResponseFact", stream: "requests",
    doc: """
        What the request stage reads of an Apple record that names a request: its status and environment,
        and its transactions' ids, original ids, dates, signatures and bundles (proof and rule 6).
        """,
    fields: [
        FactField("requestId", .requiredText), FactField("fileId", .file), FactField("line", .u32),
        FactField("receivedAtMs", .optionalInt), FactField("status", .zigzag),
        FactField("environment", .environment, "effective (semantics.md rule 2)"),
        FactField("isRetryable", .optionalBool), FactField("bundleId", .text),
        FactField(
            "flags", .flags(["signatureFailed", "environmentConflict"]),
            "its own signature (a signed format's: a Server API page's items are judged one by one) was checked and failed; "
                + "its environment signals disagree (rule 24)"),
        FactField(
            "receiptCreationDateMs", .optionalInt, "`receipt.receipt_creation_date`: a receipt made before a purchase cannot list it"),
        FactField(
            "items",
            .list(
                .record(
                    type: "Item",
                    fields: [
                        FactField("id", .requiredId), FactField("originalId", .id), FactField("purchaseDateMs", .optionalInt),
                        FactField("signature", .flags(["signatureFailed"])), FactField("bundleId", .text),
                    ]), optional: false)),
    ])

let clientFact = FactDeclaration(
    kind: "client", code: 3, type: "ClientFact", stream: "transactions",
    doc: "A client report of a transaction (failed and deferred ones, without an id, make none).",
    fields: [
        FactField("fileId", .file), FactField("line", .u32), FactField("tsMs", .i64), FactField("id", .requiredId),
        FactField("state", .caseIndex("ClientState")), FactField("userId", .text), FactField("productId", .text),
        FactField("originalId", .text), FactField("quantity", .optionalInt, "the quantity the client reported"),
    ])

let revokeFact = FactDeclaration(
    kind: "revoke", code: 4, type: "RevokeFact", stream: "transactions",
    doc: "A revoke line of the server log, once per transaction it names (rule 12).",
    fields: [
        FactField("fileId", .file), FactField("line", .u32), FactField("tsMs", .i64), FactField("id", .requiredId),
        FactField("userId", .text),
    ])

let listingFact = FactDeclaration(
    kind: "listing", code: 5, type: "ListingFact", stream: "transactions",
    doc: "One transaction as one Apple record lists it, with the record's fields the rules read.",
    fields: [
        FactField("id", .requiredId), FactField("fileId", .file), FactField("line", .u32), FactField("receivedAtMs", .optionalInt),
        FactField("status", .zigzag), FactField("environment", .environment, "the record's, effective (semantics.md rule 2)"),
        FactField("bundleId", .text, "the record's"), FactField("source", .caseIndex("EvidenceSource")),
        FactField("signature", .signature, "the record's"),
        FactField(
            "issuedDateMs", .optionalInt,
            "when Apple issued the record: its `signedDate`; for a subscription period in a verifyReceipt answer, `receipt.request_date` (rule 19)"
        ),
        FactField(
            "flags", .flags(["refundReversed", "familyShared", "environmentConflict"]),
            "a REFUND_REVERSED notification; a FAMILY_SHARED transaction; the record's environment signals disagree (rule 24)"),
        FactField("productId", .text), FactField("originalId", .id), FactField("purchaseDateMs", .optionalInt),
        FactField("cancellationDateMs", .optionalInt), FactField("cancellationReason", .text), FactField("revocationType", .text),
        FactField("revocationPercentage", .optionalInt),
        FactField("itemEnvironment", .environment, "the transaction's own (JWS), normalized"),
        FactField("itemBundleId", .text), FactField("itemSignature", .signature), FactField("itemSignedDateMs", .optionalInt),
        FactField("quantity", .optionalInt, "units Apple says were bought"), FactField("expiresDateMs", .optionalInt),
        FactField("webOrderLineItemId", .text), FactField("type", .text, "JWS `type`: the product type Apple names"),
    ])

let carrierFact = FactDeclaration(
    kind: "carrier", code: 6, type: "CarrierFact", stream: "transactions",
    doc: "(Made during reconciliation.) A request that carried or granted a transaction.",
    fields: [
        FactField("id", .requiredId), FactField("fileId", .u32, "of the request's first line"), FactField("line", .u32),
        FactField("requestId", .requiredText), FactField("userId", .text), FactField("tsMs", .i64, "the request's earliest `ts`"),
        FactField("latestMs", .i64, "its `ts` or its final answer's `received_at`, the later"),
        FactField("firstSeenMs", .i64), FactField("status", .optionalInt, "Apple's final status, else the logged one"),
        FactField("environment", .text, "Apple's word, else the log's"),
        FactField(
            "flags",
            .flags([
                "isAnswered", "isSandboxAnswer", "isProductionSuccess", "finalContains", "restore", "isCarried", "isGrant",
                "environmentConflict",
            ])),
        FactField("unresolved", .u8, "rule 14: 0 resolved, 1 no_verify_response, 2 retryable_status"),
        FactField("unproven", .u8, "rule 13: a `Grant` reason code, 0 proven"),
        FactField("creditedQuantity", .optionalInt, "units this request credited of the transaction (`credited_quantity`), when logged"),
        FactField("finalReceiptCreatedMs", .optionalInt, "when the receipt of the final answer was made (rule 21)"),
        FactField(
            "evidence", .list(.record(type: "Evidence", fields: [FactField("fileId", .u32), FactField("line", .u32)]), optional: false),
            "the request's lines, then its answers"),
    ])

let notificationFact = FactDeclaration(
    kind: "notification", code: 7, type: "NotificationFact", stream: "notifications",
    doc: "One delivery of a notification, keyed by `notificationUUID`.",
    fields: [
        FactField("fileId", .file), FactField("line", .u32), FactField("uuid", .requiredText),
        FactField("signature", .flags(["signatureFailed"])),
    ])

let purchaseFact = FactDeclaration(
    kind: "purchase", code: 8, type: "PurchaseFact", stream: "purchases",
    doc: """
        A transaction Apple lists under an original id, keyed by `original_transaction_id`: which ids are one purchase
        (semantics.md rule 18: a subscription period by its web order line item, a non-consumable by its original id).
        """,
    fields: [
        FactField("fileId", .file), FactField("line", .u32), FactField("originalId", .id), FactField("lineItem", .text),
        FactField("id", .id), FactField("productId", .text), FactField("type", .text, "JWS `type`"),
    ])

let summaryFact = FactDeclaration(
    kind: "summary", code: 9, type: "FileFacts", stream: "summary",
    doc: "What one file holds, for the audit's as-of (semantics.md rule 15) and the run's warnings.",
    fields: [
        FactField("clientReports", .i64), FactField("serverRecords", .i64), FactField("appleRecords", .i64),
        FactField("signedAppleRecords", .i64), FactField("appleItems", .i64, "transactions listed by the Apple records"),
        FactField("environmentConflicts", .i64, "Apple records whose environment signals disagree (rule 24)"),
        FactField("environmentUnknown", .i64, "Apple answers naming no environment anywhere: read as production (rule 24)"),
        FactField("newestClient", .instant, "the newest client `ts` and its first line"),
        FactField("newestServer", .instant, "the newest server `ts`"), FactField("newestReceived", .instant, "the newest `received_at`"),
        FactField("oldestClient", .instant, "the oldest client `ts` (the audit window's default start, rule 17)"),
        FactField("oldestServer", .instant, "the oldest server `ts`"),
        FactField("statusCounts", .histogram, "verifyReceipt responses by `status`"),
        FactField("latencyCounts", .histogram, "verification requests by `latency_ms`"),
    ])

let linkFact = FactDeclaration(
    kind: "link", code: 10, type: "LinkFact", stream: "transactions",
    doc: "(Made during reconciliation.) The Apple record at (file, line) listing `id` names a verification request of `userId`.",
    fields: [FactField("id", .requiredId), FactField("fileId", .u32), FactField("line", .u32), FactField("userId", .text)])

let holdingFact = FactDeclaration(
    kind: "holding", code: 11, type: "HoldingFact", stream: "transactions",
    doc: """
        (Made during reconciliation, spilled by user and product.) A user holds a credited, unrefunded purchase of a
        product (rule 23: a refunded purchase superseded by a later one is no refund still granted).
        """,
    fields: [
        FactField("userId", .requiredText), FactField("productId", .requiredText), FactField("id", .requiredId),
        FactField("purchaseMs", .i64, "Apple's purchase date, else the grant's `ts`"),
    ])

let ownerFact = FactDeclaration(
    kind: "owner", code: 12, type: "OwnerFact", stream: "transactions",
    doc: """
        (Made during reconciliation, spilled by original id.) A user was granted a period of the subscription
        `originalId` (rule 9: a renewal only Apple lists is attributed to that user).
        """,
    fields: [FactField("originalId", .requiredId), FactField("userId", .requiredText)])

let lookupFact = FactDeclaration(
    kind: "lookup", code: 13, type: "LookupFact", stream: "transactions",
    doc: """
        An App Store Server API answer kept with the transaction id it was asked about (`{"transaction_id", "received_at",
        "environment", "response"}`, as `iap-audit ask-apple` writes it), keyed by that id: found (status 0, its listing
        is a `ListingFact`) or Apple's error (`errorCode`, e.g. 4040010 not found). Semantics.md rule 25.
        """,
    fields: [
        FactField("id", .requiredId, "the transaction id asked"), FactField("fileId", .file), FactField("line", .u32),
        FactField("receivedAtMs", .optionalInt), FactField("status", .zigzag, "0, or Apple's `errorCode`"),
        FactField("environment", .environment, "the environment asked"),
    ])
