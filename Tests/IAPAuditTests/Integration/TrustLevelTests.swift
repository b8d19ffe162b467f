import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// Trust levels decide (docs/security.md, "Trust levels"): an Apple record that proves nothing changes nothing. For each
/// rule that reads Apple's listings, a forged twin of the record it relies on — signed by a self-made chain, with
/// `alg: none`, with an edited payload, given as unsigned decoded JSON, or with a `crit` header — leaves the findings
/// exactly as without it, and is counted in a warning naming its `file:line` and why. The same twin signed by the
/// configured anchor (`genuine`) moves the verdict: the tests can fail.
final class TrustLevelTests: XCTestCase {
    enum Form: String, CaseIterable {
        case genuine, selfMade, algNone, tampered, unsigned, crit
    }

    static let forged: [Form] = [.selfMade, .algNone, .tampered, .unsigned, .crit]
    static let bundle = "com.example.app"
    /// 2026-10-01T10:00:00Z, the logs' first `ts`.
    static let logStartMs: Int64 = 1_790_848_800_000
    /// 2019-01-01T00:00:00Z: the forged purchase date, years before the logs.
    static let longAgoMs: Int64 = 1_546_300_800_000

    private struct Kit {
        let fixtures: OpenSSLFixtures
        let anchored: OpenSSLFixtures.Chain
        let forger: OpenSSLFixtures.Chain
        let folder: String
        let config: String
        let anchor: String
        let nowMs: Int64
    }

    private func makeKit() throws -> Kit {
        let folder = TestPaths.scratch()
        let certs = folder + "/certs"
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
        let fixtures = try OpenSSLFixtures(folder: certs)
        let anchored = try fixtures.makeChain("apple")
        let forger = try fixtures.makeChain("forger")
        let anchor = certs + "/root.der"
        try anchored.root.write(to: URL(fileURLWithPath: anchor))
        let config = folder + "/config.json"
        try Self.json(["bundle_ids": [Self.bundle], "jws_trust_anchors": [anchor], "receipt_trust_anchors": [anchor]])
            .write(toFile: config, atomically: true, encoding: .utf8)
        return Kit(
            fixtures: fixtures, anchored: anchored, forger: forger, folder: folder, config: config, anchor: anchor,
            nowMs: Int64(Date().timeIntervalSince1970 * 1000))
    }

    static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private func transaction(_ id: String, purchaseMs: Int64, kit: Kit) -> [String: Any] {
        [
            "transactionId": id, "originalTransactionId": id, "bundleId": Self.bundle, "productId": "com.example.gems60",
            "purchaseDate": purchaseMs, "quantity": 1, "type": "Consumable", "inAppOwnershipType": "PURCHASED",
            "environment": "Production", "signedDate": kit.nowMs, "transactionReason": "PURCHASE",
        ]
    }

    /// `payload` as a compact JWS in `form` (not `unsigned`).
    private func jws(_ payload: [String: Any], _ form: Form, _ kit: Kit) throws -> String {
        let x5c = kit.anchored.x5c.map { $0.base64EncodedString() }
        switch form {
        case .genuine:
            return try kit.fixtures.signJWS(header: ["alg": "ES256", "x5c": x5c], payload: payload, by: kit.anchored)
        case .selfMade:
            let chain = kit.forger.x5c.map { $0.base64EncodedString() }
            return try kit.fixtures.signJWS(header: ["alg": "ES256", "x5c": chain], payload: payload, by: kit.forger)
        case .algNone:
            let encode = { TestJWS.base64URLEncode(Data(try Self.json($0).utf8)) }
            return "\(try encode(["alg": "none", "x5c": x5c])).\(try encode(payload))."
        case .tampered:
            // Signed as Apple would sign another payload, then the payload swapped.
            var signed = payload
            signed["storefront"] = "USA"
            let parts = try kit.fixtures.signJWS(header: ["alg": "ES256", "x5c": x5c], payload: signed, by: kit.anchored)
                .split(separator: ".")
            return "\(parts[0]).\(TestJWS.base64URLEncode(Data(try Self.json(payload).utf8))).\(parts[2])"
        case .crit:
            return try kit.fixtures.signJWS(
                header: ["alg": "ES256", "x5c": x5c, "crit": ["exp"], "exp": kit.nowMs / 1000 + 3600], payload: payload, by: kit.anchored)
        case .unsigned:
            preconditionFailure("unsigned is plain JSON")
        }
    }

    /// A signed transaction in `form`: a compact JWS document, or its payload as one JSON line.
    private func transactionTwin(_ payload: [String: Any], _ form: Form, _ kit: Kit) throws -> (name: String, text: String) {
        form == .unsigned ? ("twin.jsonl", try Self.json(payload) + "\n") : ("twin.jws", try jws(payload, form, kit) + "\n")
    }

    private struct Outcome {
        let keys: [String]
        /// `code file:line` of the trust warnings.
        let warnings: [String]
        /// Their messages.
        let messages: [String]
    }

    /// `base` with u-later's credited purchase of 2026-10-03 (its request and Apple's answer, in files of their own): the
    /// server log and Apple's answers run past every scenario's grace, so none of them waits at the edge of the data
    /// (docs/semantics.md rule 26).
    static func pastTheEdge(_ base: [String: String]) -> [String: String] {
        base.merging([
            "later-server.jsonl":
                #"{"ts": "2026-10-03T12:00:00Z", "request_id": "r-later", "user_id": "u-later", "transaction_ids": ["T-later"], "granted": true}"#
                + "\n",
            "later-apple.jsonl":
                #"{"request_id": "r-later", "received_at": "2026-10-03T12:00:01Z", "response": {"status": 0, "environment": "Production", "#
                + #""receipt": {"bundle_id": "\#(bundle)", "in_app": [{"transaction_id": "T-later", "original_transaction_id": "T-later", "#
                + #""product_id": "com.example.gems60", "quantity": "1"}]}}}"# + "\n",
        ]) { a, _ in a }
    }

    /// Runs `base` (file name → text) plus `twin` into a fresh ledger.
    private func run(_ base: [String: String], twin: (name: String, text: String)?, kit: Kit, tag: String) throws -> Outcome {
        let input = kit.folder + "/input-\(tag)"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for (name, text) in Self.pastTheEdge(base) { try text.write(toFile: input + "/" + name, atomically: true, encoding: .utf8) }
        if let twin { try twin.text.write(toFile: input + "/" + twin.name, atomically: true, encoding: .utf8) }
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

    private func expectedWarning(_ form: Form, _ twin: String) -> [String] {
        form == .unsigned ? ["unproven_records \(twin):1"] : ["signature_failed \(twin):1"]
    }

    /// The logs start 2026-10-01; r0 granted T0 on an answer also listing T9, which nobody reported or was granted;
    /// T5 was reported purchased and never sent.
    private func windowBase() throws -> [String: String] {
        let item = { (id: String) in
            [
                "transaction_id": id, "original_transaction_id": id, "product_id": "com.example.gems60", "quantity": "1",
                "purchase_date_ms": "\(Self.logStartMs + 60_000)",
            ]
        }
        return [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:00:00Z", "request_id": "r0", "user_id": "u0", "transaction_ids": ["T0"], "granted": true,
            ]) + "\n",
            "client.jsonl": try Self.json([
                "ts": "2026-10-01T11:00:00Z", "user_id": "u5", "transaction_id": "T5", "product_id": "com.example.gems60",
                "state": "purchased",
            ]) + "\n",
            "apple.jsonl": try Self.json([
                "request_id": "r0", "received_at": "2026-10-01T10:00:01Z",
                "response": [
                    "status": 0, "environment": "Production",
                    "receipt": ["bundle_id": Self.bundle, "in_app": [item("T0"), item("T9")]],
                ],
            ]) + "\n",
        ]
    }

    /// Rules 9, 17, 22 (the reported attack): Apple confirmed T9's dropped order; a twin of T9 dated years before the
    /// logs would make it `outside_window`. Rule 22: a twin listing T5 would confirm its claimed dropped order.
    func testForgedEarlierRecordMovesNoPurchaseOutOfTheWindow() throws {
        let kit = try makeKit()
        let base = try windowBase()
        let without = try run(base, twin: nil, kit: kit, tag: "base")
        XCTAssertEqual(
            without.keys, ["dropped_order/in_receipt_never_credited/T9/confirmed", "dropped_order/never_sent/T5/claimed"])
        XCTAssertEqual(without.warnings, [])
        for form in Form.allCases {
            let twin = try transactionTwin(transaction("T9", purchaseMs: Self.longAgoMs, kit: kit), form, kit)
            let with = try run(base, twin: twin, kit: kit, tag: "t9-\(form)")
            if form == .genuine {
                XCTAssertEqual(with.keys, ["dropped_order/never_sent/T5/claimed", "outside_window/before_window/T9"])
                XCTAssertEqual(with.warnings, [])
                continue
            }
            XCTAssertEqual(with.keys, without.keys, "\(form)")
            XCTAssertEqual(with.warnings, expectedWarning(form, twin.name), "\(form)")
            // Why, as stored: `alg: none` and a `crit` header are invalid (RFC 7515 §4.1.11: no extension is understood).
            let why = [
                Form.selfMade: "untrusted_root", .algNone: "invalid:unsupported_alg:none", .tampered: "invalid:bad_signature",
                .unsigned: "not_checked", .crit: "invalid:unsupported_crit:exp",
            ][form]!
            XCTAssertTrue(
                with.messages.first?.hasSuffix("twin.\(form == .unsigned ? "jsonl" : "jws"):1, \(why), signed_transaction)") == true,
                "\(with.messages)")
        }
        for form in Form.allCases {
            let twin = try transactionTwin(transaction("T5", purchaseMs: Self.logStartMs + 3_600_000, kit: kit), form, kit)
            let with = try run(base, twin: twin, kit: kit, tag: "t5-\(form)")
            if form == .genuine {
                XCTAssertEqual(
                    with.keys, ["dropped_order/in_receipt_never_credited/T9/confirmed", "dropped_order/never_sent/T5/confirmed"])
                continue
            }
            XCTAssertEqual(with.keys, without.keys, "\(form)")
            XCTAssertEqual(with.warnings, expectedWarning(form, twin.name), "\(form)")
        }
    }

    /// `trace` (docs/trace.md): the twins of the dropped-order scenario above give its verdict nothing (no purchase date,
    /// no "Apple confirmed", no product): the verdict and the next action are the run's without the twin, and the twin is
    /// on the timeline, marked unproven with its signature. The genuine twin changes the verdict: the test can fail.
    func testTraceOfAForgedTwinJudgesAsWithoutIt() throws {
        let kit = try makeKit()
        let base = try windowBase()
        _ = try run(base, twin: nil, kit: kit, tag: "base")
        /// The traced transaction's JSON, its input folder named `input`.
        func traced(_ id: String, _ tag: String) throws -> [String: Any] {
            let run = TraceTests.trace([id, "--out", kit.folder + "/out-\(tag)", "--format", "json"])
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
        let why = [
            Form.selfMade: "untrusted_root", .algNone: "invalid:unsupported_alg:none", .tampered: "invalid:bad_signature",
            .unsigned: "not_checked", .crit: "invalid:unsupported_crit:exp",
        ]
        for (id, purchaseMs) in [("T9", Self.longAgoMs), ("T5", Self.logStartMs + 3_600_000)] {
            let without = try traced(id, "base")
            let verdict = try XCTUnwrap(without["verdict"] as? [String: Any])
            let action = try XCTUnwrap(verdict["next_action"] as? [String: Any])
            XCTAssertEqual(
                action["code"] as? String, id == "T9" ? "credit_manually" : "requery", "\(action)")
            for form in Form.allCases {
                let tag = "trace-\(id)-\(form)"
                let twin = try transactionTwin(transaction(id, purchaseMs: purchaseMs, kit: kit), form, kit)
                _ = try run(base, twin: twin, kit: kit, tag: tag)
                let with = try traced(id, tag)
                let events = try XCTUnwrap(with["timeline"] as? [[String: Any]])
                let twinEvent = try XCTUnwrap(events.first { ($0["location"] as? String)?.hasSuffix("/\(twin.name):1") == true })
                if form == .genuine {
                    XCTAssertNotEqual(judged(with), judged(without), "\(id) genuine")
                    XCTAssertTrue(twinEvent["unproven"] is NSNull, "\(twinEvent)")
                    continue
                }
                XCTAssertEqual(judged(with), judged(without), "\(id) \(form)")
                XCTAssertEqual(twinEvent["unproven"] as? String, "\(why[form]!), signed_transaction", "\(id) \(form)")
                XCTAssertTrue(
                    (twinEvent["says"] as? String)?.hasSuffix(
                        "; unproven (\(why[form]!), signed_transaction): proves nothing, the verdict ignores it") == true,
                    "\(twinEvent)")
                XCTAssertEqual(events.count, (without["timeline"] as? [Any])?.count.advanced(by: 1), "\(id) \(form)")
            }
        }
    }

    /// The close (docs/close.md): T5, only the client reported, is a `claimed` sale. A forged listing of it adds nothing
    /// to the sale: not its id, its evidence, its date or its class (it made it `unproven`, listed by a record): the
    /// `close_sale` rows are the close's without the twin. The genuine twin makes it `paid`: the test can fail.
    func testCloseOfAForgedTwinBooksAsWithoutIt() throws {
        let kit = try makeKit()
        let base = try windowBase()
        func sales(_ twin: (name: String, text: String)?, _ tag: String) throws -> [String] {
            let input = kit.folder + "/input-\(tag)"
            try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
            for (name, text) in Self.pastTheEdge(base) { try text.write(toFile: input + "/" + name, atomically: true, encoding: .utf8) }
            if let twin { try twin.text.write(toFile: input + "/" + twin.name, atomically: true, encoding: .utf8) }
            let out = kit.folder + "/out-\(tag)"
            let close = CLIRun(["close", "--period", "2026-10", "--out", out, "--config", kit.config, input])
            XCTAssertEqual(close.status, 0, "\(tag): \(close.err)")
            let rows = try XCTUnwrap(
                try PythonReader.run(
                    """
                    import json, sqlite3, sys
                    db = sqlite3.connect(sys.argv[1])
                    print(json.dumps([" ".join(str(v) for v in r) for r in db.execute(
                        "SELECT purchase_key, transaction_ids, product_id, purchase_ms, country_code, amount_milliunits, pricing, "
                        "sale_class, exclusion, is_trial, refunded_milliunits, evidence, units FROM close_sale ORDER BY purchase_key")]))
                    """, args: [out + "/audit.sqlite"]) as? [String])
            return rows.map { $0.replacingOccurrences(of: input + "/", with: "") }
        }
        let without = try sales(nil, "close-base")
        XCTAssertEqual(
            without,
            [
                #"T0 ["T0"] com.example.gems60 1790848860000 None None unpriced paid None 0 0 ["apple.jsonl:1"] 1"#,
                #"T5 ["T5"] com.example.gems60 1790852400000 None None unpriced claimed None 0 0 ["client.jsonl:1"] 1"#,
                #"T9 ["T9"] com.example.gems60 1790848860000 None None unpriced paid None 0 0 ["apple.jsonl:1"] 1"#,
            ])
        for form in Form.allCases {
            let twin = try transactionTwin(transaction("T5", purchaseMs: Self.logStartMs + 7_200_000, kit: kit), form, kit)
            let with = try sales(twin, "close-\(form)")
            if form == .genuine {
                XCTAssertEqual(
                    with[1], #"T5 ["T5"] com.example.gems60 1790856000000 None None unpriced paid None 0 0 ["twin.jws:1"] 1"#)
                continue
            }
            XCTAssertEqual(with, without, "\(form)")
        }
    }

    /// Rule 18: T7, reported purchased and never sent, would be a restore of T0's non-consumable (granted) if Apple
    /// listed it under original id T0: one purchase, granted, no dropped order. A twin saying so joins nothing.
    func testForgedRecordJoinsNoPurchase() throws {
        let kit = try makeKit()
        var base = try windowBase()
        base["client7.jsonl"] =
            try Self.json([
                "ts": "2026-10-01T12:00:00Z", "user_id": "u0", "transaction_id": "T7", "product_id": "com.example.gems60",
                "state": "purchased",
            ]) + "\n"
        let without = try run(base, twin: nil, kit: kit, tag: "base")
        let expected = [
            "dropped_order/in_receipt_never_credited/T9/confirmed", "dropped_order/never_sent/T5/claimed",
            "dropped_order/never_sent/T7/claimed",
        ]
        XCTAssertEqual(without.keys, expected)
        // `trace` (docs/trace.md): the transactions an id leads to, and T7's original id and verdict.
        func traced(_ id: String, _ tag: String) throws -> String {
            let run = TraceTests.trace([id, "--out", kit.folder + "/out-\(tag)", "--format", "json"])
            XCTAssertEqual(run.status, 0, run.err)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
            let transactions = try XCTUnwrap(json["transactions"] as? [[String: Any]])
            return transactions.map { t in
                let action = ((t["verdict"] as? [String: Any])?["next_action"] as? [String: Any])?["code"] as? String ?? "-"
                return "\(t["transaction_id"] as? String ?? "?") original \(t["original_transaction_id"] as? String ?? "-") \(action)"
            }.joined(separator: "; ")
        }
        XCTAssertEqual(try traced("T0", "base"), "T0 original T0 no_action")
        XCTAssertEqual(try traced("T7", "base"), "T7 original - requery")
        for form in Form.allCases {
            var payload = transaction("T7", purchaseMs: Self.logStartMs + 7_200_000, kit: kit)
            payload["originalTransactionId"] = "T0"
            payload["type"] = "Non-Consumable"
            let twin = try transactionTwin(payload, form, kit)
            let with = try run(base, twin: twin, kit: kit, tag: "t7-\(form)")
            if form == .genuine {
                XCTAssertEqual(with.keys, Array(expected.prefix(2)))
                XCTAssertEqual(try traced("T0", "t7-\(form)"), "T0 original T0 no_action; T7 original T0 no_action")
                continue
            }
            XCTAssertEqual(with.keys, expected, "\(form)")
            XCTAssertEqual(try traced("T0", "t7-\(form)"), "T0 original T0 no_action", "\(form)")
            XCTAssertEqual(try traced("T7", "t7-\(form)"), "T7 original - requery", "\(form)")
            XCTAssertEqual(with.warnings, expectedWarning(form, twin.name), "\(form)")
        }
    }

    /// Rule 12 and re-deliveries: a genuine REFUND notification shows T1 refunded, still granted. A twin under the same
    /// `notificationUUID`, read first, would make the genuine one a re-delivery (not counted): the refund gone.
    func testForgedDeliveryHidesNoNotification() throws {
        let kit = try makeKit()
        let item: [String: Any] = [
            "transaction_id": "T1", "original_transaction_id": "T1", "product_id": "com.example.gems60", "quantity": "1",
            "purchase_date_ms": "\(Self.logStartMs - 60_000)",
        ]
        var refunded = transaction("T1", purchaseMs: Self.logStartMs - 60_000, kit: kit)
        refunded["revocationDate"] = Self.logStartMs + 7_200_000
        refunded["revocationReason"] = 0
        let refund: [String: Any] = [
            "notificationType": "REFUND", "notificationUUID": "n-1", "version": "2.0", "signedDate": kit.nowMs,
            "data": ["bundleId": Self.bundle, "environment": "Production", "signedTransactionInfo": try jws(refunded, .genuine, kit)],
        ]
        let base = [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:00:00Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["T1"], "granted": true,
            ]) + "\n",
            "apple.jsonl": try Self.json([
                "request_id": "r1", "received_at": "2026-10-01T10:00:01Z",
                "response": ["status": 0, "environment": "Production", "receipt": ["bundle_id": Self.bundle, "in_app": [item]]],
            ]) + "\n",
            "notifications.jsonl": try Self.json(["signedPayload": try jws(refund, .genuine, kit)]) + "\n",
        ]
        let without = try run(base, twin: nil, kit: kit, tag: "base")
        XCTAssertEqual(without.keys, ["refund_still_granted/cancelled_not_revoked/T1"])
        // `trace T1`'s verdict (docs/trace.md): the refund stands unless the notification's own signature counts.
        func verdict(_ tag: String) throws -> String {
            let run = TraceTests.trace(["T1", "--out", kit.folder + "/out-\(tag)", "--format", "json"])
            XCTAssertEqual(run.status, 0, run.err)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
            let t = try XCTUnwrap((json["transactions"] as? [[String: Any]])?.first)
            let v = try XCTUnwrap(t["verdict"] as? [String: Any])
            let refund = (v["refund"] as? [String: Any])?["at"] as? String ?? "-"
            let reversed = (v["refund_reversed"] as? [String: Any])?["refunded_at"] as? String ?? "-"
            let action = (v["next_action"] as? [String: Any])?["code"] as? String ?? "-"
            return "refund \(refund) reversed \(reversed) \(action)"
        }
        XCTAssertEqual(try verdict("base"), "refund 2026-10-01T12:00:00.000Z reversed - revoke")
        let nested = try jws(transaction("T1", purchaseMs: Self.logStartMs - 60_000, kit: kit), .genuine, kit)
        for form in Form.allCases {
            let renewal: [String: Any] = [
                "notificationType": "DID_RENEW", "notificationUUID": "n-1", "version": "2.0", "signedDate": kit.nowMs,
                "data": ["bundleId": Self.bundle, "environment": "Production", "signedTransactionInfo": nested],
            ]
            // Named to come first in ledger order.
            let twin =
                form == .unsigned
                ? ("a-twin.jsonl", try Self.json(renewal) + "\n")
                : ("a-twin.jsonl", try Self.json(["signedPayload": try jws(renewal, form, kit)]) + "\n")
            let with = try run(base, twin: twin, kit: kit, tag: "uuid-\(form)")
            if form == .genuine {
                XCTAssertEqual(with.keys, [])
                continue
            }
            XCTAssertEqual(with.keys, without.keys, "\(form)")
            XCTAssertEqual(with.warnings, expectedWarning(form, twin.0), "\(form)")
        }
    }

    /// Rules 2 and 8: r3 carried T3, reported purchased, and Apple's production answer lists it: `not_credited`,
    /// confirmed. A sandbox answer to r3 received later would be the final response (info `sandbox_refused`). An answer
    /// whose signature failed is none. (A decoded payload given unsigned still answers a request: docs/security.md.)
    func testForgedLaterAnswerIsNoFinalResponse() throws {
        let kit = try makeKit()
        let item: [String: Any] = [
            "transaction_id": "T3", "original_transaction_id": "T3", "product_id": "com.example.gems60", "quantity": "1",
            "purchase_date_ms": "\(Self.logStartMs + 60_000)",
        ]
        let base = [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:02:00Z", "request_id": "r3", "user_id": "u3", "transaction_ids": ["T3"], "granted": false,
            ]) + "\n",
            "client.jsonl": try Self.json([
                "ts": "2026-10-01T10:01:00Z", "user_id": "u3", "transaction_id": "T3", "product_id": "com.example.gems60",
                "state": "purchased",
            ]) + "\n",
            "apple.jsonl": try Self.json([
                "request_id": "r3", "received_at": "2026-10-01T10:02:01Z",
                "response": ["status": 0, "environment": "Production", "receipt": ["bundle_id": Self.bundle, "in_app": [item]]],
            ]) + "\n",
        ]
        let without = try run(base, twin: nil, kit: kit, tag: "base")
        XCTAssertEqual(without.keys, ["dropped_order/not_credited/T3/confirmed"])
        for form in Form.allCases where form != .unsigned {
            var payload = transaction("T3", purchaseMs: Self.logStartMs + 60_000, kit: kit)
            payload["environment"] = "Sandbox"
            let answer = try Self.json([
                "request_id": "r3", "received_at": "2026-10-01T10:30:00Z", "signed_transaction": try jws(payload, form, kit),
            ])
            let with = try run(base, twin: ("twin.jsonl", answer + "\n"), kit: kit, tag: "r3-\(form)")
            if form == .genuine {
                XCTAssertEqual(with.keys, ["sandbox_refused/sandbox_receipt/T3"])
                continue
            }
            XCTAssertEqual(with.keys, without.keys, "\(form)")
            XCTAssertEqual(with.warnings, expectedWarning(form, "twin.jsonl"), "\(form)")
        }
    }

    /// Rules 12, 19 and 20 on one ledger: T1, T2 and T4 granted on Apple's production answers. A twin showing T1
    /// refunded would make `refund_still_granted`; T2 bought 3 times (1 credited) `under_credited`; T4 refunded before
    /// its revoke would excuse `revoked_while_paid`.
    func testForgedRefundsAndQuantitiesChangeNothing() throws {
        let kit = try makeKit()
        let item = { (id: String) -> [String: Any] in
            [
                "transaction_id": id, "original_transaction_id": id, "product_id": "com.example.gems60", "quantity": "1",
                "purchase_date_ms": "\(Self.logStartMs - 60_000)",
            ]
        }
        let server = [
            ["ts": "2026-10-01T10:00:00Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["T1"], "granted": true],
            [
                "ts": "2026-10-01T10:00:00Z", "request_id": "r2", "user_id": "u2", "transaction_ids": ["T2"], "granted": true,
                "credited_quantity": 1,
            ],
            ["ts": "2026-10-01T10:00:00Z", "request_id": "r4", "user_id": "u4", "transaction_ids": ["T4"], "granted": true],
            [
                "ts": "2026-10-01T12:00:00Z", "request_id": "rv4", "event": "revoke", "user_id": "u4", "transaction_ids": ["T4"],
                "granted": false,
            ],
        ]
        let answers = ["T1", "T2", "T4"].map { id in
            [
                "request_id": "r" + id.dropFirst(), "received_at": "2026-10-01T10:00:01Z",
                "response": ["status": 0, "environment": "Production", "receipt": ["bundle_id": Self.bundle, "in_app": [item(id)]]],
            ] as [String: Any]
        }
        let base = [
            "server.jsonl": try server.map(Self.json).joined(separator: "\n") + "\n",
            "apple.jsonl": try answers.map(Self.json).joined(separator: "\n") + "\n",
        ]
        let without = try run(base, twin: nil, kit: kit, tag: "base")
        XCTAssertEqual(without.keys, ["dropped_order/revoked_while_paid/T4/confirmed"])
        var refunded = transaction("T1", purchaseMs: Self.logStartMs - 60_000, kit: kit)
        refunded["revocationDate"] = Self.logStartMs + 3_600_000
        var bought = transaction("T2", purchaseMs: Self.logStartMs - 60_000, kit: kit)
        bought["quantity"] = 3
        var excused = transaction("T4", purchaseMs: Self.logStartMs - 60_000, kit: kit)
        excused["revocationDate"] = Self.logStartMs + 3_600_000
        for (payload, genuine) in [
            (refunded, ["dropped_order/revoked_while_paid/T4/confirmed", "refund_still_granted/cancelled_not_revoked/T1"]),
            (bought, ["dropped_order/revoked_while_paid/T4/confirmed", "dropped_order/under_credited/T2/confirmed"]),
            (excused, []),
        ] {
            let id = payload["transactionId"] as! String
            for form in Form.allCases {
                let twin = try transactionTwin(payload, form, kit)
                let with = try run(base, twin: twin, kit: kit, tag: "\(id)-\(form)")
                if form == .genuine {
                    XCTAssertEqual(with.keys, genuine, id)
                    continue
                }
                XCTAssertEqual(with.keys, without.keys, "\(id) \(form)")
                XCTAssertEqual(with.warnings, expectedWarning(form, twin.name), "\(id) \(form)")
            }
        }
    }

    /// Each record kind and signature gets its level (docs/security.md, "Trust levels").
    func testEachSourceAndSignatureHasItsLevel() {
        var levels: [String] = []
        for source in EvidenceSource.allCases {
            let row = [SignatureCode.verified, .notChecked, .untrustedRoot, .invalid].map { TrustLevel(source: source, signature: $0).text }
            levels.append("\(source.rawValue): " + row.joined(separator: " "))
        }
        XCTAssertEqual(
            levels,
            [
                "verify_receipt: verified_chain apple_answer_logged failed failed",
                "signed_transaction: verified_chain unverified failed failed",
                "signed_renewal_info: verified_chain unverified failed failed",
                "app_transaction: verified_chain unverified failed failed",
                "server_api: verified_chain apple_answer_logged failed failed",
                "notification_v2: verified_chain unverified failed failed",
                "notification_v1: verified_chain apple_answer_logged failed failed",
                "app_receipt: verified_receipt unverified failed failed",
                "transaction_receipt: verified_receipt unverified failed failed",
            ])
        XCTAssertEqual(TrustLevel.allCases.filter(\.counts), [.appleAnswerUnlinked, .appleAnswerLogged, .verifiedReceipt, .verifiedChain])
    }

    /// The reported attack on the command line: `--fail-on dropped_order` still exits 3 with the forged twin, and
    /// `--fail-on-rejected` alerts on a failed signature in a file the run brought (not on an unsigned payload).
    func testForgedTwinStillFailsOnDroppedOrder() throws {
        let kit = try makeKit()
        let base = try windowBase()
        for form in Self.forged {
            let input = kit.folder + "/cli-\(form)"
            try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
            for (name, text) in Self.pastTheEdge(base) { try text.write(toFile: input + "/" + name, atomically: true, encoding: .utf8) }
            let twin = try transactionTwin(transaction("T9", purchaseMs: Self.longAgoMs, kit: kit), form, kit)
            try twin.text.write(toFile: input + "/" + twin.name, atomically: true, encoding: .utf8)
            let dropped = CLIRun([
                "run", input, "--out", kit.folder + "/out-cli-\(form)", "--config", kit.config, "--fail-on", "dropped_order",
            ])
            XCTAssertEqual(dropped.status, 3, "\(form): \(dropped.err)")
            XCTAssertTrue((dropped.out + dropped.err).contains("dropped_order:T9"), "\(form): \(dropped.out) \(dropped.err)")
            let rejected = CLIRun([
                "run", input, "--out", kit.folder + "/out-rejected-\(form)", "--config", kit.config, "--fail-on-rejected",
            ])
            XCTAssertEqual(rejected.status, form == .unsigned ? 0 : 3, "\(form): \(rejected.err)")
            // The file alerted the night it came: the same files again do not alert, the warning stays.
            let again = CLIRun(["run", input, "--out", kit.folder + "/out-rejected-\(form)", "--config", kit.config, "--fail-on-rejected"])
            XCTAssertEqual(again.status, 0, "\(form): \(again.err)")
            XCTAssertEqual(again.err.contains("warning: \(input)/\(twin.name): 1 Apple listing"), true, "\(form): \(again.err)")
        }
    }

    /// Rule 12: Apple refunded T1, still granted to u1; a REFUND_REVERSED notification signed after the refund would
    /// clear it. Its envelope forged (the transaction inside genuine), it clears nothing.
    func testForgedRefundReversalClearsNoRefund() throws {
        let kit = try makeKit()
        let item: [String: Any] = [
            "transaction_id": "T1", "original_transaction_id": "T1", "product_id": "com.example.gems60", "quantity": "1",
            "purchase_date_ms": "\(Self.logStartMs - 60_000)", "cancellation_date_ms": "\(Self.logStartMs + 7_200_000)",
        ]
        let base = [
            "server.jsonl": try Self.json([
                "ts": "2026-10-01T10:00:00Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["T1"], "granted": true,
            ]) + "\n",
            "apple.jsonl": try Self.json([
                "request_id": "r1", "received_at": "2026-10-01T10:00:01Z",
                "response": ["status": 0, "environment": "Production", "receipt": ["bundle_id": Self.bundle, "in_app": [item]]],
            ]) + "\n",
        ]
        let without = try run(base, twin: nil, kit: kit, tag: "base")
        XCTAssertEqual(without.keys, ["refund_still_granted/cancelled_not_revoked/T1"])
        // `trace T1`'s verdict (docs/trace.md): the refund stands unless the notification's own signature counts.
        func verdict(_ tag: String) throws -> String {
            let run = TraceTests.trace(["T1", "--out", kit.folder + "/out-\(tag)", "--format", "json"])
            XCTAssertEqual(run.status, 0, run.err)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
            let t = try XCTUnwrap((json["transactions"] as? [[String: Any]])?.first)
            let v = try XCTUnwrap(t["verdict"] as? [String: Any])
            let refund = (v["refund"] as? [String: Any])?["at"] as? String ?? "-"
            let reversed = (v["refund_reversed"] as? [String: Any])?["refunded_at"] as? String ?? "-"
            let action = (v["next_action"] as? [String: Any])?["code"] as? String ?? "-"
            return "refund \(refund) reversed \(reversed) \(action)"
        }
        XCTAssertEqual(try verdict("base"), "refund 2026-10-01T12:00:00.000Z reversed - revoke")
        let nested = try jws(transaction("T1", purchaseMs: Self.logStartMs - 60_000, kit: kit), .genuine, kit)
        for form in Form.allCases {
            let notification: [String: Any] = [
                "notificationType": "REFUND_REVERSED", "notificationUUID": "n-\(form)", "version": "2.0", "signedDate": kit.nowMs,
                "data": ["bundleId": Self.bundle, "environment": "Production", "signedTransactionInfo": nested],
            ]
            let twin =
                form == .unsigned
                ? ("twin.jsonl", try Self.json(notification) + "\n")
                : ("twin.jsonl", try Self.json(["signedPayload": try jws(notification, form, kit)]) + "\n")
            let with = try run(base, twin: twin, kit: kit, tag: "rr-\(form)")
            if form == .genuine {
                XCTAssertEqual(with.keys, [])
                XCTAssertEqual(with.warnings, [])
                XCTAssertEqual(try verdict("rr-\(form)"), "refund - reversed 2026-10-01T12:00:00.000Z no_action")
                continue
            }
            XCTAssertEqual(try verdict("rr-\(form)"), try verdict("base"), "\(form)")
            XCTAssertEqual(with.keys, without.keys, "\(form)")
            XCTAssertEqual(with.warnings, expectedWarning(form, twin.0), "\(form)")
        }
    }
}
