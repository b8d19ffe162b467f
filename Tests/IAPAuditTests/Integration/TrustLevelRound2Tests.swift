import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// Trust levels, round 2 (docs/security.md, "Trust levels"): the attacks a hostile tester made after the first round.
/// Each test builds a small ledger, the attack's record beside it, and checks that the findings are those without it;
/// a control (a genuine or linked record) shows the verdict can move.
final class TrustLevelRound2Tests: XCTestCase {
    static let bundle = "com.example.app"
    /// 2026-10-01T10:00:00Z, the logs' first `ts`.
    static let logStartMs: Int64 = 1_790_848_800_000
    /// 2019-01-01T00:00:00Z: the forged purchase date, years before the logs.
    static let longAgoMs: Int64 = 1_546_300_800_000

    struct Kit {
        let fixtures: OpenSSLFixtures
        let anchored: OpenSSLFixtures.Chain
        let forger: OpenSSLFixtures.Chain
        let folder: String
        let anchor: String
        let nowMs: Int64
    }

    func makeKit() throws -> Kit {
        let folder = TestPaths.scratch()
        let certs = folder + "/certs"
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
        let fixtures = try OpenSSLFixtures(folder: certs)
        let anchored = try fixtures.makeChain("apple")
        let forger = try fixtures.makeChain("forger")
        let anchor = certs + "/root.der"
        try anchored.root.write(to: URL(fileURLWithPath: anchor))
        return Kit(
            fixtures: fixtures, anchored: anchored, forger: forger, folder: folder, anchor: anchor,
            nowMs: Int64(Date().timeIntervalSince1970 * 1000))
    }

    static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A JWS signed by the configured anchor (`genuine`) or by a self-made chain.
    func jws(_ payload: [String: Any], genuine: Bool, _ kit: Kit) throws -> String {
        let chain = genuine ? kit.anchored : kit.forger
        let x5c = chain.x5c.map { $0.base64EncodedString() }
        return try kit.fixtures.signJWS(header: ["alg": "ES256", "x5c": x5c], payload: payload, by: chain)
    }

    func transaction(_ id: String, purchaseMs: Int64, kit: Kit) -> [String: Any] {
        [
            "transactionId": id, "originalTransactionId": id, "bundleId": Self.bundle, "productId": "com.example.gems60",
            "purchaseDate": purchaseMs, "quantity": 1, "type": "Consumable", "inAppOwnershipType": "PURCHASED",
            "environment": "Production", "signedDate": kit.nowMs, "transactionReason": "PURCHASE",
        ]
    }

    /// A verifyReceipt `in_app` item.
    static func item(_ id: String, purchaseMs: Int64) -> [String: Any] {
        [
            "transaction_id": id, "original_transaction_id": id, "product_id": "com.example.gems60", "quantity": "1",
            "purchase_date_ms": "\(purchaseMs)",
        ]
    }

    /// A production verifyReceipt answer listing `items`.
    static func answer(_ items: [[String: Any]]) -> [String: Any] {
        ["status": 0, "environment": "Production", "receipt": ["bundle_id": bundle, "in_app": items]]
    }

    struct Outcome {
        let keys: [String]
        /// `code file:line` of the trust warnings.
        let warnings: [String]
        /// Their messages.
        let messages: [String]
    }

    /// Runs `files` (file name → text) into a fresh ledger; `pastTheEdge`: with u-later's purchase of 2026-10-03, so that
    /// the logs run past the scenario's grace (rule 26).
    func run(_ files: [String: String], kit: Kit, tag: String, pastTheEdge: Bool = false) throws -> Outcome {
        let input = kit.folder + "/input-\(tag)"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for (name, text) in pastTheEdge ? TrustLevelTests.pastTheEdge(files) : files {
            try text.write(toFile: input + "/" + name, atomically: true, encoding: .utf8)
        }
        var config = AuditConfig(bundleIds: [Self.bundle])
        config.jwsTrustAnchors = [kit.anchor]
        config.receiptTrustAnchors = [kit.anchor]
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: kit.folder + "/out-\(tag)", config: config))
        let keys = try result.snapshot.findings.all().map {
            "\($0.kind.rawValue)/\($0.reason)/\($0.transactionId)" + ($0.appleConfirmation.map { "/\($0.rawValue)" } ?? "")
        }.sorted()
        let trust = result.warnings.filter { [.signatureFailed, .unprovenRecords].contains($0.code) }
        let warnings = trust.map { warning in
            let first = warning.message.range(of: "(the first: ").map { String(warning.message[$0.upperBound...].prefix { $0 != "," }) }
            return "\(warning.code) \(URL(fileURLWithPath: first ?? "?").lastPathComponent)"
        }
        return Outcome(keys: keys, warnings: warnings, messages: trust.map(\.message))
    }

    /// The logs start 2026-10-01; r0 granted T0 on an answer also listing T9 (dated `t9Ms`), which nobody reported or
    /// was granted; T5 was reported purchased and never sent.
    func windowBase(t9Ms: Int64 = logStartMs + 60_000) throws -> [String: String] {
        [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:00:00Z", "request_id": "r0", "user_id": "u0", "transaction_ids": ["T0"], "granted": true,
            ]) + "\n",
            "client.jsonl": try Self.json([
                "ts": "2026-10-01T11:00:00Z", "user_id": "u5", "transaction_id": "T5", "product_id": "com.example.gems60",
                "state": "purchased",
            ]) + "\n",
            "apple.jsonl": try Self.json([
                "request_id": "r0", "received_at": "2026-10-01T10:00:01Z",
                "response": Self.answer([Self.item("T0", purchaseMs: Self.logStartMs + 60_000), Self.item("T9", purchaseMs: t9Ms)]),
            ]) + "\n",
        ]
    }

    // MARK: F1: an unsigned date beats Apple's signed date

    /// Rule 17: Apple confirmed T9's dropped order (an answer to r0). An unsigned answer no logged request links to —
    /// a Notification V1 body, a bare verifyReceipt file, an answer to an unknown `request_id` — listing T9 years
    /// earlier moves it out of nothing. A second answer to r0 (linked) dated years earlier does: it is as good as the
    /// first.
    func testUnlinkedAnswerMovesNoPurchaseOutOfTheWindow() throws {
        let kit = try makeKit()
        let base = try windowBase()
        let without = try run(base, kit: kit, tag: "base", pastTheEdge: true)
        XCTAssertEqual(
            without.keys, ["dropped_order/in_receipt_never_credited/T9/confirmed", "dropped_order/never_sent/T5/claimed"])
        let early = Self.item("T9", purchaseMs: Self.longAgoMs)
        let v1: [String: Any] = [
            "notification_type": "INTERACTIVE_RENEWAL", "environment": "PROD",
            "unified_receipt": ["status": 0, "environment": "Production", "latest_receipt_info": [early]],
        ]
        let attacks: [String: String] = [
            "v1.json": try Self.json(v1) + "\n",
            "bare.json": try Self.json(Self.answer([early])) + "\n",
            "wrapped.jsonl": try Self.json([
                "request_id": "r-unknown", "received_at": "2026-10-01T10:00:02Z", "response": Self.answer([early]),
            ]) + "\n",
        ]
        for (name, text) in attacks {
            var files = base
            files[name] = text
            let with = try run(files, kit: kit, tag: name, pastTheEdge: true)
            XCTAssertEqual(with.keys, without.keys, name)
        }
        var linked = base
        linked["later.jsonl"] =
            try Self.json([
                "request_id": "r0", "received_at": "2026-10-01T10:00:02Z",
                "response": Self.answer([Self.item("T0", purchaseMs: Self.logStartMs + 60_000), early]),
            ]) + "\n"
        XCTAssertEqual(
            try run(linked, kit: kit, tag: "linked", pastTheEdge: true).keys,
            ["dropped_order/never_sent/T5/claimed", "outside_window/before_window/T9"])
    }

    /// Rule 17 and the best level: r0's logged answer dates T9 years before the logs (`outside_window`). A verified JWS
    /// of T9 dated inside the window is the stronger listing: its date is the one read, and T9 is a dropped order.
    func testVerifiedDateIsNotOverriddenByAWeakerListing() throws {
        let kit = try makeKit()
        let base = try windowBase(t9Ms: Self.longAgoMs)
        XCTAssertEqual(
            try run(base, kit: kit, tag: "base", pastTheEdge: true).keys,
            ["dropped_order/never_sent/T5/claimed", "outside_window/before_window/T9"])
        var files = base
        files["t9.jws"] = try jws(transaction("T9", purchaseMs: Self.logStartMs + 60_000, kit: kit), genuine: true, kit) + "\n"
        XCTAssertEqual(
            try run(files, kit: kit, tag: "verified", pastTheEdge: true).keys,
            ["dropped_order/in_receipt_never_credited/T9/confirmed", "dropped_order/never_sent/T5/claimed"])
    }

    /// `trace` and the close follow the levels: a forged Notification V1 body (unsigned, no request asked for it) dating
    /// T9 in 2020 gives neither T9's date. Trace's verdict, purchase date, product, original id and next action are
    /// those without it, its event is marked `apple_answer_unlinked`; the close's `close_sale` rows are those without it.
    func testTraceAndCloseReadTheHighestLevelPresent() throws {
        let kit = try makeKit()
        let base = try windowBase()
        let config = kit.folder + "/config.json"
        try Self.json(["bundle_ids": [Self.bundle], "jws_trust_anchors": [kit.anchor], "receipt_trust_anchors": [kit.anchor]])
            .write(toFile: config, atomically: true, encoding: .utf8)
        let v1: [String: Any] = [
            "notification_type": "INTERACTIVE_RENEWAL", "environment": "PROD",
            "unified_receipt": [
                "status": 0, "environment": "Production", "latest_receipt_info": [Self.item("T9", purchaseMs: 1_577_880_000_000)],
            ],
        ]
        var attacked = base
        attacked["v1.json"] = try Self.json(v1) + "\n"
        func traced(_ files: [String: String], _ tag: String) throws -> [String: Any] {
            _ = try run(files, kit: kit, tag: tag, pastTheEdge: true)
            let run = TraceTests.trace(["T9", "--out", kit.folder + "/out-\(tag)", "--format", "json"])
            XCTAssertEqual(run.status, 0, run.err)
            let text = run.out.replacingOccurrences(of: "/input-\(tag)/", with: "/input/")
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            return try XCTUnwrap((json["transactions"] as? [[String: Any]])?.first)
        }
        func judged(_ t: [String: Any]) -> NSDictionary {
            NSDictionary(dictionary: [
                "verdict": t["verdict"] ?? NSNull(), "purchase_date": t["purchase_date"] ?? NSNull(),
                "product_id": t["product_id"] ?? NSNull(), "original_transaction_id": t["original_transaction_id"] ?? NSNull(),
            ])
        }
        let without = try traced(base, "trace-base")
        XCTAssertEqual(without["purchase_date"] as? String, "2026-10-01T10:01:00.000Z")
        let action = ((without["verdict"] as? [String: Any])?["next_action"] as? [String: Any])?["code"] as? String
        XCTAssertEqual(action, "credit_manually")
        let with = try traced(attacked, "trace-v1")
        XCTAssertEqual(judged(with), judged(without))
        let events = try XCTUnwrap(with["timeline"] as? [[String: Any]])
        let v1Event = try XCTUnwrap(events.first { ($0["location"] as? String)?.hasSuffix("/v1.json:1") == true })
        XCTAssertEqual(v1Event["trust_level"] as? String, "apple_answer_unlinked")
        XCTAssertTrue(v1Event["unproven"] is NSNull, "\(v1Event)")
        XCTAssertTrue(
            (v1Event["says"] as? String)?.contains(
                "; apple_answer_unlinked: no logged request asked for it, a stronger listing's date wins")
                == true, "\(v1Event)")
        let logged = try XCTUnwrap(events.first { ($0["location"] as? String)?.hasSuffix("/apple.jsonl:1") == true })
        XCTAssertEqual(logged["trust_level"] as? String, "apple_answer_logged")

        func sales(_ files: [String: String], _ tag: String) throws -> [String] {
            let input = kit.folder + "/input-\(tag)"
            try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
            for (name, text) in files { try text.write(toFile: input + "/" + name, atomically: true, encoding: .utf8) }
            let out = kit.folder + "/out-\(tag)"
            let close = CLIRun(["close", "--period", "2026-10", "--out", out, "--config", config, input])
            XCTAssertEqual(close.status, 0, "\(tag): \(close.err)")
            let rows = try XCTUnwrap(
                try PythonReader.run(
                    """
                    import json, sqlite3, sys
                    db = sqlite3.connect(sys.argv[1])
                    print(json.dumps([" ".join(str(v) for v in r) for r in db.execute(
                        "SELECT purchase_key, transaction_ids, product_id, purchase_ms, sale_class, exclusion, units "
                        "FROM close_sale ORDER BY purchase_key")]))
                    """, args: [out + "/audit.sqlite"]) as? [String])
            return rows
        }
        let booked = try sales(base, "close-base")
        XCTAssertEqual(
            booked,
            [
                #"T0 ["T0"] com.example.gems60 1790848860000 paid None 1"#,
                #"T5 ["T5"] com.example.gems60 1790852400000 claimed None 1"#,
                #"T9 ["T9"] com.example.gems60 1790848860000 paid None 1"#,
            ])
        XCTAssertEqual(try sales(attacked, "close-v1"), booked)
    }

    /// The level of an unsigned answer depends on its link to a logged request (`ReconcileContext.trust`); the rules still
    /// read an unlinked one (a V1 refund), but its date dates nothing (`TrustLevel.dating`).
    func testUnlinkedLevelSitsBetweenUnverifiedAndLogged() {
        XCTAssertEqual(
            TrustLevel.allCases.map(\.text),
            ["failed", "unverified", "apple_answer_unlinked", "apple_answer_logged", "verified_receipt", "verified_chain"])
        XCTAssertEqual(TrustLevel.needed, .appleAnswerUnlinked)
        XCTAssertEqual(TrustLevel.dating, .appleAnswerLogged)
    }
    // MARK: F2: one forged entry of a notification-history page

    /// Rule 12: Apple refunded T1 (r1's answer), still granted to u1. A Get Notification History page whose entry is a
    /// genuine REFUND_REVERSED clears it; a forged entry beside it (a TEST notification, self-made chain or `alg: none`)
    /// changes nothing: each entry's type is judged by its own signature, not the page's worst. An entry whose
    /// envelope is forged (its transaction genuine) clears nothing, and its listing is counted as failed.
    func testForgedHistoryEntryCancelsNoGenuineRefundReversal() throws {
        let kit = try makeKit()
        var cancelled = Self.item("T1", purchaseMs: Self.logStartMs - 60_000)
        cancelled["cancellation_date_ms"] = "\(Self.logStartMs + 7_200_000)"
        let base = [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:00:00Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["T1"], "granted": true,
            ]) + "\n",
            "apple.jsonl": try Self.json([
                "request_id": "r1", "received_at": "2026-10-01T10:00:01Z", "response": Self.answer([cancelled]),
            ]) + "\n",
        ]
        XCTAssertEqual(try run(base, kit: kit, tag: "base", pastTheEdge: true).keys, ["refund_still_granted/cancelled_not_revoked/T1"])
        let nested = try jws(transaction("T1", purchaseMs: Self.logStartMs - 60_000, kit: kit), genuine: true, kit)
        let reversal: [String: Any] = [
            "notificationType": "REFUND_REVERSED", "notificationUUID": "n-rr", "version": "2.0", "signedDate": kit.nowMs,
            "data": ["bundleId": Self.bundle, "environment": "Production", "signedTransactionInfo": nested],
        ]
        let test: [String: Any] = [
            "notificationType": "TEST", "notificationUUID": "n-test", "version": "2.0", "signedDate": kit.nowMs,
        ]
        let algNone = { (payload: [String: Any]) -> String in
            let encode = { TestJWS.base64URLEncode(Data(try Self.json($0).utf8)) }
            return "\(try encode(["alg": "none"])).\(try encode(payload))."
        }
        func page(_ entries: [String]) throws -> String {
            try Self.json(["notificationHistory": entries.map { ["signedPayload": $0, "sendAttempts": []] }, "hasMore": false]) + "\n"
        }
        let genuine = try jws(reversal, genuine: true, kit)
        for (tag, entries) in [
            ("genuine", [genuine]), ("self", [genuine, try jws(test, genuine: false, kit)]), ("none", [genuine, try algNone(test)]),
        ] {
            var files = base
            files["page.jsonl"] = try page(entries)
            XCTAssertEqual(try run(files, kit: kit, tag: "page-\(tag)", pastTheEdge: true).keys, [], tag)
        }
        var files = base
        files["page.jsonl"] = try page([try jws(reversal, genuine: false, kit)])
        let forged = try run(files, kit: kit, tag: "page-forged", pastTheEdge: true)
        XCTAssertEqual(forged.keys, ["refund_still_granted/cancelled_not_revoked/T1"])
        XCTAssertEqual(forged.warnings, ["signature_failed page.jsonl:1"])
        XCTAssertTrue(forged.messages.first?.hasSuffix("page.jsonl:1, untrusted_root, server_api)") == true, "\(forged.messages)")
    }
    // MARK: F3: a forged item inside a Server API answer to a request

    /// Rules 2, 8, 14: r6 carried T6, reported purchased, and nothing answered it (pending). A Server API answer to r6 (a
    /// transaction page, a Get Transaction Info answer, a status answer) whose only item is forged gives what the same
    /// answer without the item gives (an empty page: answered, T6 not in it): the forged item is absent for every rule.
    /// The same item signed by the anchor is present: `not_credited`, confirmed.
    func testForgedItemIsAbsentFromItsAnswer() throws {
        let kit = try makeKit()
        let base = [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:02:00Z", "request_id": "r6", "user_id": "u6", "transaction_ids": ["T6"], "granted": false,
            ]) + "\n" + Self.json(["ts": "2026-10-05T10:00:00Z", "request_id": "r7", "user_id": "u7", "transaction_ids": []]) + "\n",
            "client.jsonl": try Self.json([
                "ts": "2026-10-01T10:01:00Z", "user_id": "u6", "transaction_id": "T6", "product_id": "com.example.gems60",
                "state": "purchased",
            ]) + "\n",
        ]
        XCTAssertEqual(
            try run(base, kit: kit, tag: "base").keys,
            ["pending_verification/no_verify_response/T6"], "unanswered, within the grace of the client's newest ts")
        let payload = transaction("T6", purchaseMs: Self.logStartMs + 60_000, kit: kit)
        func answer(_ response: [String: Any]) throws -> String {
            try Self.json(["request_id": "r6", "received_at": "2026-10-01T10:02:01Z", "response": response]) + "\n"
        }
        func page(_ items: [String]) -> [String: Any] {
            ["bundleId": Self.bundle, "environment": "Production", "hasMore": false, "revision": "a", "signedTransactions": items]
        }
        var empty = base
        empty["answer.jsonl"] = try answer(page([]))
        let none = try run(empty, kit: kit, tag: "empty")
        XCTAssertEqual(none.keys, ["dropped_order/not_in_receipt/T6/claimed"])
        for genuine in [true, false] {
            let item = try jws(payload, genuine: genuine, kit)
            let shapes: [String: [String: Any]] = [
                "page": page([item]), "info": ["signedTransactionInfo": item],
                "status": [
                    "bundleId": Self.bundle, "environment": "Production",
                    "data": [
                        [
                            "subscriptionGroupIdentifier": "1",
                            "lastTransactions": [["originalTransactionId": "T6", "status": 1, "signedTransactionInfo": item]],
                        ]
                    ],
                ],
            ]
            for (shape, response) in shapes {
                var files = base
                files["answer.jsonl"] = try answer(response)
                let with = try run(files, kit: kit, tag: "\(shape)-\(genuine)")
                if genuine {
                    XCTAssertEqual(with.keys, ["dropped_order/not_credited/T6/confirmed"], shape)
                } else {
                    XCTAssertEqual(with.keys, none.keys, shape)
                    XCTAssertEqual(with.warnings, ["signature_failed answer.jsonl:1"], shape)
                    XCTAssertTrue(
                        with.messages.first?.contains(
                            "proves nothing for Apple's data but the unsigned answer listing it still answered its logged request, as it "
                                + "would without it (the first: ") == true, "\(with.messages)")
                }
            }
        }
    }
    // MARK: F8: the warning of an iOS 6 receipt that answered its request

    /// An iOS 6 transaction receipt is unverified, but posted with a logged `request_id` it still answers that request
    /// (docs/security.md, "Trust levels"): its warning says so. Posted with a `request_id` the log lacks, it changed
    /// no finding, and its warning says that.
    func testUnverifiedReceiptThatAnsweredItsRequestIsSaid() throws {
        let kit = try makeKit()
        let info =
            #"{ "transaction-id" = "T8"; "original-transaction-id" = "T8"; "product-id" = "com.example.gems60"; "#
            + #""quantity" = "1"; "purchase-date-ms" = "\#(Self.logStartMs + 60_000)"; }"#
        let outer = #"{ "purchase-info" = "\#(Data(info.utf8).base64EncodedString())"; "environment" = "Production"; }"#
        let receipt = Data(outer.utf8).base64EncodedString()
        let server =
            try Self.json([
                "ts": "2026-10-01T10:00:00Z", "request_id": "r8", "user_id": "u8", "transaction_ids": ["T8"], "granted": true,
            ]) + "\n"
        for (requestId, said) in [
            ("r8", "proves nothing for Apple's data but answered its logged request (backing its grant, as docs/security.md says)"),
            ("r-unknown", "proves nothing and changed no finding"),
        ] {
            let files = [
                "server.jsonl": server,
                "receipt.jsonl": try Self.json(["request_id": requestId, "received_at": "2026-10-01T10:00:01Z", "receipt_data": receipt])
                    + "\n",
            ]
            let with = try run(files, kit: kit, tag: requestId)
            XCTAssertEqual(with.warnings, ["unproven_records receipt.jsonl:1"], requestId)
            XCTAssertTrue(
                with.messages.first?.contains("given unsigned (a decoded payload as plain JSON) \(said) (the first: ") == true,
                "\(with.messages)")
        }
    }
    // MARK: F7: every failed signature is counted

    /// A notification V2 signed by a self-made chain without `data` lists no transaction, and a forged entry of a
    /// notification-history page beside a genuine one fails only the page: each is counted in `signature_failed`,
    /// which alerts under `--fail-on-rejected`. Signed by the anchor, neither warns.
    func testFailedSignatureOfARecordWithoutAListingIsCounted() throws {
        let kit = try makeKit()
        let test: [String: Any] = [
            "notificationType": "TEST", "notificationUUID": "n-test", "version": "2.0", "signedDate": kit.nowMs,
        ]
        let reversal: [String: Any] = [
            "notificationType": "REFUND_REVERSED", "notificationUUID": "n-rr", "version": "2.0", "signedDate": kit.nowMs,
            "data": [
                "bundleId": Self.bundle, "environment": "Production",
                "signedTransactionInfo": try jws(transaction("T1", purchaseMs: Self.logStartMs, kit: kit), genuine: true, kit),
            ],
        ]
        let server = try Self.json(["ts": "2026-10-01T10:00:00Z", "request_id": "r0", "user_id": "u0", "transaction_ids": []]) + "\n"
        for genuine in [true, false] {
            let notification = try Self.json(["signedPayload": try jws(test, genuine: genuine, kit)]) + "\n"
            let page =
                try Self.json([
                    "notificationHistory": [
                        ["signedPayload": try jws(reversal, genuine: true, kit), "sendAttempts": []],
                        ["signedPayload": try jws(test, genuine: genuine, kit), "sendAttempts": []],
                    ],
                    "hasMore": false,
                ]) + "\n"
            for (name, text) in [("notification.jsonl", notification), ("page.jsonl", page)] {
                let with = try run(["server.jsonl": server, name: text], kit: kit, tag: "\(name)-\(genuine)")
                // The genuine entry's T1, never granted: a dropped order with or without the forged entry.
                XCTAssertEqual(with.keys, name == "page.jsonl" ? ["dropped_order/in_receipt_never_credited/T1/confirmed"] : [], name)
                XCTAssertEqual(with.warnings, genuine ? [] : ["signature_failed \(name):1"], name)
                if !genuine {
                    XCTAssertTrue(
                        with.messages.first?.hasSuffix(
                            "\(name):1, untrusted_root, \(name == "page.jsonl" ? "server_api" : "notification_v2"))")
                            == true, "\(with.messages)")
                }
            }
        }
        let input = kit.folder + "/cli"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try server.write(toFile: input + "/server.jsonl", atomically: true, encoding: .utf8)
        try (try Self.json(["signedPayload": try jws(test, genuine: false, kit)]) + "\n")
            .write(toFile: input + "/notification.jsonl", atomically: true, encoding: .utf8)
        let config = kit.folder + "/config.json"
        try Self.json(["bundle_ids": [Self.bundle], "jws_trust_anchors": [kit.anchor], "receipt_trust_anchors": [kit.anchor]])
            .write(toFile: config, atomically: true, encoding: .utf8)
        let rejected = CLIRun(["run", input, "--out", kit.folder + "/out-cli", "--config", config, "--fail-on-rejected"])
        XCTAssertEqual(rejected.status, 3, rejected.err)
    }
}
