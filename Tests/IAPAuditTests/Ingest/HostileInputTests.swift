import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// Inputs a fresh user threw at the tool to break it: long runs of unreadable lines, bytes that are not
/// UTF-8, lone surrogates, keys equal only after normalisation. Each line stays accounted for, on both
/// the fast and the strict JSON Lines path.
final class HostileInputTests: XCTestCase {
    private func read(_ data: Data, path: String = "in.jsonl", fastPath: Bool = true) -> ImportedRecords {
        FileImporter.read(InputFile(path: path, data: data), fastPath: fastPath)
    }

    private func read(_ text: String, path: String = "in.jsonl", fastPath: Bool = true) -> ImportedRecords {
        read(Data(text.utf8), path: path, fastPath: fastPath)
    }

    private func client(_ id: String, user: String = "u1") -> String {
        #"{"ts":"2026-10-01T00:01:57Z","user_id":"\#(user)","transaction_id":"\#(id)","state":"purchased"}"#
    }

    /// More unreadable lines than the kind search looks at, then good lines: the good lines are read.
    func testGoodLinesAfterAHundredUnreadableOnesAreRead() {
        let missing = Array(repeating: #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","state":"purchased"}"#, count: 120)
        let garbage = (1...120).map { "not json at all \($0)" }
        for (bad, reason) in [
            (missing, "missing required field 'transaction_id'"), (garbage, "invalid JSON: invalid literal at line 1, column 2"),
        ] {
            for fastPath in [true, false] {
                let file = read((bad + [client("1"), client("2"), client("3")]).joined(separator: "\n"), fastPath: fastPath)
                XCTAssertEqual(file.kind, .clientReport)
                XCTAssertEqual(file.clientReports.map(\.transactionId), ["1", "2", "3"])
                XCTAssertEqual(file.clientReports.map(\.location.line), [121, 122, 123])
                XCTAssertEqual(file.rejections.count, 120)
                XCTAssertEqual(Set(file.rejections.map(\.reason)), [reason])
                XCTAssertEqual(file.recordsIn, 123)
            }
        }
    }

    /// More JSON objects of no known kind than the kind search looks at (empty objects, heartbeats), then
    /// client reports: the file is read as client reports, not skipped, and the objects are rejected.
    func testRecordsAfterAHundredObjectsOfNoKnownKindAreRead() {
        for filler in [#"{}"#, #"{"note":"heartbeat"}"#] {
            for fastPath in [true, false] {
                let lines = Array(repeating: filler, count: 150) + [client("1"), client("2")]
                let file = read(lines.joined(separator: "\n"), fastPath: fastPath)
                XCTAssertEqual(file.kind, .clientReport)
                XCTAssertEqual(file.status, .imported)
                XCTAssertEqual(file.clientReports.map(\.location.line), [151, 152])
                XCTAssertEqual(file.rejections.count, 150)
                XCTAssertEqual(file.rejections.first?.reason, "missing required field 'state'")
                XCTAssertEqual(file.recordsIn, 152)
            }
        }
        // Objects of no known kind all through: still skipped as not evidence.
        let other = read(Array(repeating: #"{"note":"heartbeat"}"#, count: 150).joined(separator: "\n"))
        XCTAssertEqual(other.status, .skipped)
        XCTAssertEqual(other.recordsIn, 0)
    }

    /// A log written with epoch *seconds* (1790812920 = 2026-10-01) is rejected line by line with the
    /// reason, on both paths, not read as milliseconds (1970-01-21); milliseconds and ISO 8601 read.
    func testEpochSecondsInALogAreRejectedNotReadAs1970() {
        let reason =
            "field 'ts': epoch milliseconds 1790812920 would be 1970-01-21T17:26:52.920Z: epoch seconds? (2026-10-01T00:02:00.000Z if so); give milliseconds or ISO 8601"
        let lines = [
            #"{"ts":1790812920,"user_id":"u1","transaction_id":"1","state":"purchased"}"#,
            #"{"ts":"1790812920","user_id":"u1","transaction_id":"2","state":"purchased"}"#,
            #"{"ts":1790812920000,"user_id":"u1","transaction_id":"3","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:02:00Z","user_id":"u1","transaction_id":"4","state":"purchased"}"#,
        ]
        let server = #"{"ts":1790812920,"request_id":"r1","user_id":"u1","transaction_ids":["1"],"granted":true}"#
        let verify = #"{"request_id":"r1","received_at":1790812920,"response":{"status":21005}}"#
        for fastPath in [true, false] {
            let file = read(lines.joined(separator: "\n"), fastPath: fastPath)
            XCTAssertEqual(file.clientReports.map(\.transactionId), ["3", "4"])
            XCTAssertEqual(file.rejections.map(\.reason), [reason, reason])
            XCTAssertEqual(read(server, fastPath: fastPath).rejections.map(\.reason), [reason])
            XCTAssertEqual(
                read(verify, fastPath: fastPath).rejections.map(\.reason),
                [reason.replacingOccurrences(of: "field 'ts'", with: "field 'received_at'")])
        }
    }

    /// An id with white space at its start or end is another id than Apple's: rejected with the reason
    /// (JSON Lines on both paths, CSV), not kept to become a false dropped order; inner spaces and
    /// non-ASCII ends stay ids.
    func testIdsWithSpaceAtAnEndAreRejected() {
        let lines = [
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":" 2000000400594934 ","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":" u30","transaction_id":"2","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u\u00a0","transaction_id":"3","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"Ana María","transaction_id":"4","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u🎮","transaction_id":"5","state":"purchased"}"#,
        ]
        let reasons = [
            #"field 'transaction_id': " 2000000400594934 " has white space at its start or end (ids are exact text: remove it)"#,
            #"field 'user_id': " u30" has white space at its start or end (ids are exact text: remove it)"#,
            "field 'user_id': \"u\u{A0}\" has white space at its start or end (ids are exact text: remove it)",
        ]
        for fastPath in [true, false] {
            let file = read(lines.joined(separator: "\n"), fastPath: fastPath)
            XCTAssertEqual(file.clientReports.map(\.transactionId), ["4", "5"])
            XCTAssertEqual(file.rejections.map(\.reason), reasons)
        }
        let csv = read(
            "ts,user_id,transaction_id,state\n1790812800000,u1, 2000000400594934 ,purchased\n1790812800000,u1,7,purchased\n", path: "c.csv")
        XCTAssertEqual(csv.clientReports.map(\.transactionId), ["7"])
        XCTAssertEqual(csv.rejections.map(\.reason), [reasons[0]])
    }

    /// A file of which no line is readable: each line is rejected with its own reason, not one for the file.
    func testEveryLineUnreadableRejectsEachLine() {
        let text = [
            #"{"ts":"2026-10-01T00:02:00Z","request_id":"x1","transaction_ids":["1"],"granted":true,"granted":true}"#,
            #"{"ts":"2026-10-01T00:02:00Z","request_id":"x2"#,
        ].joined(separator: "\n")
        let file = read(text, path: "dup.jsonl")
        XCTAssertEqual(file.status, .rejected)
        XCTAssertEqual(file.recordsIn, 2)
        XCTAssertEqual(file.rejections.map(\.location.description), ["dup.jsonl:1", "dup.jsonl:2"])
        XCTAssertEqual(
            file.rejections.map(\.reason),
            [
                #"invalid JSON: duplicate key "granted" at line 1, column 87"#,
                "invalid JSON: unterminated string at line 1, column 46",
            ])
        // Past the kind search, an object of no known kind is one more rejected line.
        let dup = #"{"ts":"2026-10-01T00:02:00Z","request_id":"x1","transaction_ids":["1"],"granted":true,"granted":true}"#
        let long = read((Array(repeating: dup, count: 101) + [#"{"hello":"world"}"#]).joined(separator: "\n"))
        XCTAssertEqual(long.recordsIn, 102)
        XCTAssertEqual(long.rejections.count, 102)
        XCTAssertEqual(long.rejections.last?.reason, "a JSON object of no known record kind (keys: hello)")
    }

    /// Bytes that are not UTF-8 are a rejection, never a U+FFFD that makes two ids one.
    func testInvalidUTF8IsRejectedInJSONLines() {
        var data = Data(client("1").utf8) + Data("\n".utf8)
        data += Data(#"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"14"#.utf8) + Data([0xFF])
        data += Data(#"01","state":"purchased"}"#.utf8) + Data("\n".utf8)
        data += Data(#"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"14"#.utf8) + Data([0xFE])
        data += Data(#"01","state":"purchased"}"#.utf8)
        for fastPath in [true, false] {
            let file = read(data, fastPath: fastPath)
            XCTAssertEqual(file.clientReports.map(\.transactionId), ["1"])
            XCTAssertEqual(file.rejections.map(\.location.line), [2, 3])
            XCTAssertEqual(file.rejections.first?.reason, "invalid JSON: invalid UTF-8 in a string at line 1, column 65")
        }
    }

    func testInvalidUTF8IsRejectedInCSV() {
        var data = Data("ts,user_id,transaction_id,state,note\n1790812800000,u1,100,purchased,\n".utf8)
        data += Data("1790812800000,u1,10".utf8) + Data([0xFF]) + Data("1,purchased,\n".utf8)
        data += Data("1790812800000,u2,102,purchased,\"two\nli".utf8) + Data([0xC3]) + Data("nes\"\n".utf8)
        data += Data("1790812800000,u1,103,purchased,\n".utf8)
        let file = read(data, path: "client.csv")
        XCTAssertEqual(file.clientReports.map(\.transactionId), ["100", "103"])
        XCTAssertEqual(file.rejections.map(\.location.line), [3, 4])
        XCTAssertEqual(
            file.rejections.map(\.reason),
            ["invalid UTF-8 at line 1, column 20 of the record", "invalid UTF-8 at line 2, column 3 of the record"])
        XCTAssertEqual(file.recordsIn, 4)
    }

    /// A `\u` escape of half a surrogate pair is not a character: rejected on both paths, in keys and values.
    func testLoneSurrogateEscapesAreRejected() {
        let text = [
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"1\ud800","state":"purchased"}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"2","state":"purchased","\udbff":1}"#,
            #"{"ts":"2026-10-01T00:01:57Z","user_id":"u\ud83d\ude00","transaction_id":"3","state":"purchased"}"#,
        ].joined(separator: "\n")
        for fastPath in [true, false] {
            let file = read(text, fastPath: fastPath)
            XCTAssertEqual(file.clientReports.map(\.userId), ["u\u{1F600}"], "a whole pair is one character")
            XCTAssertEqual(
                file.rejections.map(\.reason),
                [
                    #"invalid JSON: invalid \u escape (a lone surrogate) at line 1, column 64"#,
                    #"invalid JSON: invalid \u escape (a lone surrogate) at line 1, column 87"#,
                ])
        }
    }

    /// Keys are compared as bytes: "é" and "e\u0301" are two keys, not a duplicate.
    func testKeysEqualOnlyAfterNormalisationAreNotDuplicates() {
        let text = #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"1011","state":"purchased","e\u0301":1,"\u00e9":2}"#
        for fastPath in [true, false] {
            XCTAssertEqual(read(text, fastPath: fastPath).clientReports.map(\.transactionId), ["1011"])
        }
        let escaped = #"{"ts":"2026-10-01T00:01:57Z","user_id":"u1","transaction_id":"1","state":"purchased","\u0069d":1,"id":2}"#
        XCTAssertEqual(read(escaped).rejections.first?.reason, #"invalid JSON: duplicate key "id" at line 1, column 98"#)
    }
}
