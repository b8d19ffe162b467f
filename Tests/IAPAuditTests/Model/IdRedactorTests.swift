import Foundation
import XCTest

@testable import IAPAuditCrypto
@testable import IAPAuditModel

/// `IdRedactor`'s tokens and texts (README, "Redaction"), and the HMAC under them.
final class IdRedactorTests: XCTestCase {
    let redactor = HMACSHA256.redactor(key: Array("0123456789abcdef-test-key".utf8))

    func testHMACSHA256IsTheStandardOne() {
        // RFC 2104's example as Wikipedia gives it: HMAC_SHA256("key", "The quick brown fox jumps over the lazy dog").
        let mac = HMACSHA256.mac(key: Array("key".utf8), message: Array("The quick brown fox jumps over the lazy dog".utf8))
        XCTAssertEqual(IdRedactor.hex(mac), "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
    }

    func testTokensAreTheHMACOfTheRoleAndTheIdFixedLengthAndStable() {
        let full = IdRedactor.hex(HMACSHA256.mac(key: Array("0123456789abcdef-test-key".utf8), message: Array("user:u42".utf8)))
        XCTAssertEqual(redactor.user("u42"), "u_" + full.prefix(16))
        XCTAssertEqual(redactor.user("u42"), redactor.user("u42"))
        XCTAssertNotEqual(redactor.user("u42"), redactor.user("u43"))
        XCTAssertNotEqual(redactor.user("x").dropFirst(2), redactor.device("x").dropFirst(2), "the role is in the message")
        XCTAssertTrue(redactor.device("0266E8F1-0265-4B19-A29B-5A847B95686A").hasPrefix("d_"))
        for token in [redactor.user(""), redactor.user(String(repeating: "é", count: 5000)), redactor.device("d")] {
            XCTAssertEqual(token.count, 18)
            XCTAssertTrue(IdRedactor.isToken(token), token)
        }
        XCTAssertFalse(IdRedactor.isToken("u_0123"))
        XCTAssertFalse(IdRedactor.isToken("x_0123456789abcdef"))
        XCTAssertEqual(redactor.fingerprint.count, 18)
        XCTAssertTrue(redactor.fingerprint.hasPrefix("k_"))
        XCTAssertNotEqual(redactor.fingerprint, HMACSHA256.redactor(key: Array("another key of 16+ bytes".utf8)).fingerprint)
    }

    func testAFindingShowsTokensForItsUsersAndTheUsersItsFactsName() {
        var f = Finding(
            kind: .refundStillGranted, reason: "cancelled_not_revoked", transactionId: "2000000400594083",
            productId: "com.example.premium", userIds: ["u4", "u42"], environment: "Production")
        f.facts.set(.cancelledMs, Timestamp.parseMs("2026-10-07T14:18:14Z")!)
        f.facts.set(.holders, texts: ["u4", "u42", nil])
        f.facts.set(
            .laterPurchases,
            objects: [
                ["u7", "2000000400594841", "com.example.premium", Timestamp.parseMs("2026-10-06T12:38:15Z")!],
                ["u8", "2000000400594842", "P", Timestamp.parseMs("2026-10-06T12:38:16Z")!],
            ])
        f.detail = FindingSentence.text(f)
        XCTAssertEqual(
            f.detail,
            "cancelled at 2026-10-07T14:18:14.000Z; still granted to (no user), u4, u42; superseded: u7 holds the later purchase "
                + "2000000400594841 of com.example.premium (purchased 2026-10-06T12:38:15.000Z); u8 holds the later purchase "
                + "2000000400594842 of P (purchased 2026-10-06T12:38:16.000Z)")
        let shown = redactor.finding(f)
        let (u4, u42, u7, u8) = (redactor.user("u4"), redactor.user("u42"), redactor.user("u7"), redactor.user("u8"))
        XCTAssertEqual(shown.userIds, [u4, u42])
        XCTAssertEqual(shown.facts.optionalTexts(.holders), [u4, u42, nil])
        XCTAssertEqual(shown.facts.objects(.laterPurchases).compactMap { $0["user_id"]?.text }, [u7, u8])
        XCTAssertEqual(
            shown.detail,
            "cancelled at 2026-10-07T14:18:14.000Z; still granted to " + ["(no user)", u4, u42].sorted().joined(separator: ", ")
                + "; superseded: \(u7) holds the later purchase 2000000400594841 of com.example.premium (purchased 2026-10-06T12:38:15.000Z); "
                + "\(u8) holds the later purchase 2000000400594842 of P (purchased 2026-10-06T12:38:16.000Z)")
        // Nothing of the users is left in the text.
        for name in ["u4", "u42", "u7", "u8"] {
            XCTAssertFalse(shown.detail.contains(" \(name) ") || shown.detail.contains(" \(name),"), name)
        }
        XCTAssertEqual(shown.transactionId, f.transactionId)
    }

    func testARejectionShowsNeitherItsTextNorAQuotedId() {
        let location = SourceLocation(file: "in/client.jsonl", line: 7)
        XCTAssertEqual(
            IdRedactor.rawText(#"{"user_id": " alice"}"#, at: location),
            "[not shown: redacted (21 characters); the line is at in/client.jsonl:7]")
        let cases = [
            (
                #"field 'user_id': " alice" has white space at its start or end (ids are exact text: remove it)"#,
                "field 'user_id': [redacted] has white space at its start or end (ids are exact text: remove it)"
            ),
            (
                #"field 'device_id': "2.5E+15" looks like an id a spreadsheet rewrote as a number (x); export the column as text"#,
                "field 'device_id': [redacted] looks like an id a spreadsheet rewrote as a number (x); export the column as text"
            ),
            (
                "field 'user_id': expected text or a whole number, found 12.5",
                "field 'user_id': expected text or a whole number, found [redacted]"
            ),
            (
                #"field 'transactions.appAccountToken': "x y" is not a list of ids separated by ';'"#,
                "field 'transactions.appAccountToken': [redacted] is not a list of ids separated by ';'"
            ),
            ("field 'user_id': expected text or a number, found a boolean", "field 'user_id': expected text or a number, found a boolean"),
            ("field 'device_id': longer than 4096 bytes", "field 'device_id': longer than 4096 bytes"),
            // Any field's quoted value: a CSV line whose columns shifted puts a user id under any of them (found by a
            // privacy user test: `u4242` under `ts` was shown in clear on stderr, the Summary and the Rejected sheet).
            (
                #"field 'transaction_id': " 2000000400000002" has white space"#,
                "field 'transaction_id': [redacted] has white space"
            ),
            (
                #"field 'ts': not a timestamp: "u4242" (expected ISO 8601 or epoch milliseconds, 1900–2200)"#,
                "field 'ts': not a timestamp: [redacted] (expected ISO 8601 or epoch milliseconds, 1900–2200)"
            ),
            (
                #"field 'state': unknown state "PLANTU71" (expected purchasing, purchased, failed, deferred or restored)"#,
                "field 'state': unknown state [redacted] (expected purchasing, purchased, failed, deferred or restored)"
            ),
            (#"field 'granted': expected a boolean, found "u7""#, "field 'granted': expected a boolean, found [redacted]"),
            (#"field 'ts': not a timestamp: "a"b" (expected x)"#, "field 'ts': not a timestamp: [redacted] (expected x)"),
            (#"field 'ts': not a timestamp: "u7"#, "field 'ts': not a timestamp: [redacted]"),
            (
                "field 'credited_quantity': names u9, which this record does not credit (credited_transaction_ids, else transaction_ids)",
                "field 'credited_quantity': names [redacted], which this record does not credit (credited_transaction_ids, else transaction_ids)"
            ),
            (#"invalid JSON: duplicate key "u7" at line 1, column 51"#, "invalid JSON: duplicate key [redacted] at line 1, column 51"),
            ("field 'latency_ms': must not be negative, found -1", "field 'latency_ms': must not be negative, found -1"),
            ("invalid JSON: expected ':' at line 1, column 231", "invalid JSON: expected ':' at line 1, column 231"),
            // What a value leaves behind: a numeric id, the timestamps read from it, object keys (a privacy retest).
            (
                "field 'ts': epoch milliseconds 1790812920 would be 1970-01-21T17:26:52.920Z: epoch seconds? "
                    + "(2026-10-01T00:02:00.000Z if so)",
                "field 'ts': epoch milliseconds [redacted] would be [redacted]: epoch seconds? ([redacted] if so)"
            ),
            ("field 'quantity': must be at least 1, found -4455667788", "field 'quantity': must be at least 1, found [redacted]"),
            (
                "not an App Store signed transaction, Server API response or server notification (keys: uPL4k08, b)",
                "not an App Store signed transaction, Server API response or server notification (keys: [redacted])"
            ),
            (
                "field 'ts': not a timestamp: \"x\" (expected ISO 8601 or epoch milliseconds, 1900–2200)",
                "field 'ts': not a timestamp: [redacted] (expected ISO 8601 or epoch milliseconds, 1900–2200)"
            ),
            ("expected 9 fields as in the header, found 10", "expected 9 fields as in the header, found 10"),
        ]
        for (reason, shown) in cases { XCTAssertEqual(IdRedactor.reason(reason), shown, reason) }
        for (_, shown) in cases { XCTAssertEqual(IdRedactor.reason(shown), shown, "redacting twice changes nothing") }
    }

    func testTheConfigShowsTheAllowlistAsTokens() {
        var config = AuditConfig()
        config.sandboxAllowlist = ["u-reviewer-1", "u-reviewer-2"]
        XCTAssertEqual(redactor.config(config).sandboxAllowlist, [redactor.user("u-reviewer-1"), redactor.user("u-reviewer-2")])
    }
}
