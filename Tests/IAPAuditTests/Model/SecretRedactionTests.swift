import Foundation
import XCTest

@testable import IAPAuditCrypto
@testable import IAPAuditModel

/// `SecretRedaction`: the shared secret never stored nor shown, receipts stored but never shown; and the
/// Swift SHA-256 that names a receipt on the sheet agrees with OpenSSL's.
final class SecretRedactionTests: XCTestCase {
    func testTheSharedSecretIsRedactedWhateverItsKeyCaseOrValue() {
        let cases: [(String, String)] = [
            (#"{"password": "s3cret", "a": 1}"#, #"{"password": "[redacted]", "a": 1}"#),
            (#"{"PassWord":"s3cret"}"#, #"{"PassWord":"[redacted]"}"#),
            (
                #"{"shared_secret" : "s3cret","sharedSecret":"s3cret","shared-secret":"s3cret"}"#,
                #"{"shared_secret" : "[redacted]","sharedSecret":"[redacted]","shared-secret":"[redacted]"}"#
            ),
            (#"{"password": 123456, "b": true}"#, #"{"password": "[redacted]", "b": true}"#),
            (#"{"password": "a\"b\\", "x": "y"}"#, #"{"password": "[redacted]", "x": "y"}"#),
            // JSON escaped inside a JSON string (a request echo logged as text).
            (#"{"body": "{\"password\":\"s3cret\",\"x\":1}"}"#, #"{"body": "{\"password\":\"[redacted]\",\"x\":1}"}"#),
            (#"{"body": "{\"password\": 42}"}"#, #"{"body": "{\"password\": \"[redacted]\"}"}"#),
            (#"{"a": {"password": "s3cret"}, "b": ["password"]}"#, #"{"a": {"password": "[redacted]"}, "b": ["password"]}"#),
        ]
        for (input, expected) in cases { XCTAssertEqual(SecretRedaction.stored(input), expected, input) }
    }

    /// The shapes an attack found stored: a value of any type, a key JSON escaped, a secret escaped twice.
    func testTheSharedSecretIsRedactedWhateverItsValueTypeKeyEscapeOrDepth() {
        let cases: [(String, String)] = [
            (#"{"password": {"value": "s3cret", "n": [1, "}"]}, "a": 1}"#, #"{"password": "[redacted]", "a": 1}"#),
            (#"{"password": ["s3cret", {"b": "]"}], "a": 1}"#, #"{"password": "[redacted]", "a": 1}"#),
            (#"{"password": {"a": {"b": ["s3cret"]}}}"#, #"{"password": "[redacted]"}"#),
            (#"{"password": false}"#, #"{"password": "[redacted]"}"#),
            (#"{"password": "s3cret"}"#, #"{"password": "[redacted]"}"#),
            (#"{"pASSWORD": 7}"#, #"{"pASSWORD": "[redacted]"}"#),
            (#"{"shared_secret": "s3cret"}"#, #"{"shared_secret": "[redacted]"}"#),
            (#"{"SHARED_SECRET": "s3cret", "Password": "s3cret"}"#, #"{"SHARED_SECRET": "[redacted]", "Password": "[redacted]"}"#),
            // Escaped once, with an escaped key or an object value.
            (#"{"body": "{"p\u0061ssword": "s3cret"}"}"#, #"{"body": "{"p\u0061ssword": "[redacted]"}"}"#),
            (#"{"body": "{"password": {"v": "s3cret"}, "x": 1}"}"#, #"{"body": "{"password": "[redacted]", "x": 1}"}"#),
            // Escaped twice: a body holding a body.
            (
                #"{"body": "{"inner": "{\"password\": \"s3cret\", \"x\": 1}"}"}"#,
                #"{"body": "{"inner": "{\"password\": \"[redacted]\", \"x\": 1}"}"}"#
            ),
            (
                #"{"body": "{"inner": "{\"password\": [\"s3cret\"]}"}"}"#,
                #"{"body": "{"inner": "{\"password\": \"[redacted]\"}"}"}"#
            ),
            // A broken line: an object never closed runs to the end; a cut string too.
            (#"{"password": {"v": "s3cret""#, #"{"password": "[redacted]""#),
            (#"{"a": 1, "password": "s3cr"#, #"{"a": 1, "password": "[redacted]"#),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(SecretRedaction.stored(input), expected, input)
            XCTAssertEqual(SecretRedaction.stored(expected), expected, "redacting again changes nothing: \(expected)")
        }
        XCTAssertTrue(SecretRedaction.isSecretName("Shared-Secret"))
        XCTAssertTrue(SecretRedaction.isSecretName("p\\u0061ssword"))
        XCTAssertFalse(SecretRedaction.isSecretName("password_hint"))
    }

    /// JSON in a quoted CSV field (its quotes doubled), a form-encoded body (the legacy verifyReceipt POST) and a
    /// rejection's reason quoting a bad value: the secret redacted there too, the rest kept.
    func testTheSharedSecretIsRedactedInACSVFieldAFormBodyAndARejectionReason() {
        let cases: [(String, String)] = [
            (#"rq1,u1,notabool,"{""password"":""s3cret"",""x"":1}""#, #"rq1,u1,notabool,"{""password"":""[redacted]"",""x"":1}""#),
            (#""{""a"":{""Shared_Secret"":[""s3cret""]}}",2"#, #""{""a"":{""Shared_Secret"":""[redacted]""}}",2"#),
            (#"a,"{""body"":""{\""password\"":\""s3cret\""}""}""#, #"a,"{""body"":""{\""password\"":\""[redacted]\""}""}""#),
            // A CSV field cut with its line: unterminated, redacted to the end.
            (#"a,"{""password"":""s3cr"#, #"a,"{""password"":""[redacted]"#),
            ("password=s3cret&receipt-data=MIIT%2B", "password=[redacted]&receipt-data=MIIT%2B"),
            ("receipt-data=MIIT&PASSWORD=s3cret", "receipt-data=MIIT&PASSWORD=[redacted]"),
            (#"{"body": "shared_secret=s3cret&receipt-data=x"}"#, #"{"body": "shared_secret=[redacted]&receipt-data=x"}"#),
            (#"rq1,"password=s3cret&x=1",3"#, #"rq1,"password=[redacted]&x=1",3"#),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(SecretRedaction.stored(input), expected, input)
            XCTAssertEqual(SecretRedaction.shown(input), expected, input)
            XCTAssertEqual(SecretRedaction.stored(expected), expected, "redacting again changes nothing: \(expected)")
        }
        for text in ["mypassword=x", "password=", "password_hint=x", "a,\"b\"\"c\",d", #"{"a": "", "b": "password"}"#] {
            XCTAssertEqual(SecretRedaction.stored(text), text, text)
        }
        // A rejection's reason quotes the bad value as it is: the reason is redacted as its raw text is.
        let rejection = Rejection(
            location: SourceLocation(file: "server.jsonl", line: 2),
            reason: #"field 'ts': not a timestamp: "{"password":"s3cret"}" (expected ISO 8601)"#,
            rawText: #"{"ts":"{\"password\":\"s3cret\"}"}"#)
        XCTAssertEqual(rejection.reason, #"field 'ts': not a timestamp: "{"password":"[redacted]"}" (expected ISO 8601)"#)
        XCTAssertEqual(rejection.rawText, #"{"ts":"{\"password\":\"[redacted]\"}"}"#)
        let form = Rejection(
            location: SourceLocation(file: "server.jsonl", line: 3), reason: #"field 'body': "password=s3cret&receipt-data=x""#,
            rawText: "")
        XCTAssertEqual(form.reason, #"field 'body': "password=[redacted]&receipt-data=x""#)
    }

    func testWhatHoldsNoSecretIsLeftAsItIs() {
        for text in [
            #"{"note": "password", "password_hint": "x", "passwords": 1}"#, #"{"password": null}"#, "password",
            "", "plain text, no JSON", #"{"latest_receipt": "TUlJQg=="}"#,
        ] {
            XCTAssertEqual(SecretRedaction.stored(text), text, text)
            var bytes = Array(text.utf8)
            XCTAssertNil(bytes.withUnsafeMutableBufferPointer { SecretRedaction.stored(UnsafeBufferPointer($0)) }, "no copy: \(text)")
        }
    }

    /// A rejected line cut inside the secret: redacted to the cut note, and the note kept.
    func testACutLineIsRedactedUpToItsCutNote() {
        let note = " … [cut: 5000 characters in all; the whole line is at its file:line]"
        XCTAssertEqual(SecretRedaction.stored(#"{"a": 1, "password": "s3cr"# + note), #"{"a": 1, "password": "[redacted]"# + note)
        XCTAssertEqual(SecretRedaction.shown(#"{"receipt_data": "TUlJQk"# + note).hasSuffix(note), true)
    }

    /// A receipt the cut of a rejected line ends in: a lower bound and no hash (a prefix's hash names no
    /// receipt), however it is written; one that closes before the cut keeps its size and hash.
    func testAReceiptCutWithItsLineIsAPart() {
        let note = " … [cut: 9000 characters in all; the whole line is at its file:line]"
        let part = "MIIT" + String(repeating: "QUJD", count: 20)
        let summary = "[receipt: at least 84 characters of base64, cut with the line (no SHA-256 of a part)]"
        XCTAssertEqual(SecretRedaction.shown(#"{"receipt_data": "\#(part)"# + note), #"{"receipt_data": "\#(summary)"# + note)
        XCTAssertEqual(
            SecretRedaction.shown(#"{"body": "{"latest_receipt": "\#(part)"# + note), #"{"body": "{"latest_receipt": "\#(summary)"# + note)
        XCTAssertEqual(SecretRedaction.shown(part + note), summary + note)
        XCTAssertEqual(SecretRedaction.shown("\"" + part + note), summary + note)
        let whole = "[receipt: 84 bytes of base64, SHA-256 \(SwiftSHA256.hex(Array(part.utf8)))]"
        XCTAssertEqual(
            SecretRedaction.shown(#"{"receipt_data": "\#(part)", "note": "x"# + note), #"{"receipt_data": "\#(whole)", "note": "x"# + note)
    }

    func testReceiptsAreStoredButShownAsTheirSizeAndHash() throws {
        let receipt = "MIIT" + String(repeating: "QUJD", count: 30) + "+/8="
        let hash = Digest.sha256Hex(Data(receipt.utf8))
        let summary = "[receipt: \(receipt.count) bytes of base64, SHA-256 \(hash)]"
        let line = #"{"request_id": "r1", "receipt-data": "\#(receipt)", "password": "s3cret"}"#
        XCTAssertEqual(SecretRedaction.stored(line), #"{"request_id": "r1", "receipt-data": "\#(receipt)", "password": "[redacted]"}"#)
        XCTAssertEqual(SecretRedaction.shown(line), #"{"request_id": "r1", "receipt-data": "\#(summary)", "password": "[redacted]"}"#)
        // JSON's `\/` and `\n` are not part of the base64: the hash is the receipt's.
        let escaped = receipt.replacingOccurrences(of: "/", with: "\\/").replacingOccurrences(of: "QUJD", with: "QUJD\\n")
        XCTAssertEqual(SecretRedaction.shown(#"{"latest_receipt":"\#(escaped)"}"#), #"{"latest_receipt":"\#(summary)"}"#)
        for key in ["transactionReceipt", "receipt_data", "Payload", "latest_expired_receipt", "receipt"] {
            XCTAssertEqual(SecretRedaction.shown(#"{"\#(key)": "\#(receipt)"}"#), #"{"\#(key)": "\#(summary)"}"#, key)
        }
        // A line of base64 alone (a receipt file's line), bare or quoted.
        XCTAssertEqual(SecretRedaction.shown(receipt), summary)
        XCTAssertEqual(SecretRedaction.shown("  \"\(receipt)\"\n"), summary)
        XCTAssertEqual(SecretRedaction.shown("x" + receipt + "!"), "x" + receipt + "!", "not base64 alone")
        // Placeholders, ids and words are not receipts.
        for text in [
            #"{"latest_receipt": "<base 64>"}"#, #"{"receipt": {"in_app": []}}"#, "2000000400000001", "hello", #"{"receipt": "abc"}"#,
        ] {
            XCTAssertEqual(SecretRedaction.shown(text), text)
        }
        XCTAssertEqual(
            SecretRedaction.shown(#"{"latest_receipt": "ZmFrZV9yZWNlaXB0"}"#),
            #"{"latest_receipt": "[receipt: 16 bytes of base64, SHA-256 \#(Digest.sha256Hex(Data("ZmFrZV9yZWNlaXB0".utf8)))]"}"#)
    }

    func testSwiftSHA256AgreesWithOpenSSL() {
        XCTAssertEqual(SwiftSHA256.hex([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SwiftSHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var random = SystemRandomNumberGenerator()
        for length in [1, 55, 56, 63, 64, 65, 119, 120, 1000, 4096] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            XCTAssertEqual(SwiftSHA256.hex(bytes), Digest.sha256Hex(Data(bytes)), "\(length) bytes")
        }
    }
}
