import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReconcile
@testable import IAPAuditStore

/// The request stage's carry (`RequestCarry`): a night's run recomputes only the requests its new facts name,
/// and finds what a run over every night's files from scratch finds; anything the carry was not made from
/// has every request recomputed. Each night's records are files of their own (`n1/server.jsonl`…), as a
/// nightly export leaves them.
final class RequestCarryTests: XCTestCase {
    /// A ledger fed night by night, reconciled with a carry after each night.
    final class Nights {
        let root = TestPaths.scratch()
        let store: AuditStore
        var config = AuditConfig()
        /// Every night's files so far, in the order imported.
        private(set) var files: [(path: String, batch: RecordBatch)] = []
        let carry: String

        /// A ledger at `path` (default: a new one in a folder of its own) whose carry is in `carry` (default: beside it).
        init(ledger path: String? = nil, carry: String? = nil) throws {
            store = try AuditStore(path: path ?? root + "/audit.sqlite")
            self.carry = carry ?? root + "/carry"
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// Imports what `night` built, its files under `folder/` (`importing: false`: files the ledger holds already).
        func add(_ night: LedgerBuilder, as folder: String, importing: Bool = true) throws {
            var batches: [String: RecordBatch] = [:]
            let ledger = night.ledger
            for r in ledger.clientReports { batches[folder + "/" + r.location.file, default: RecordBatch()].append(r) }
            for r in ledger.serverRequests { batches[folder + "/" + r.location.file, default: RecordBatch()].append(r) }
            for r in ledger.appleRecords { batches[folder + "/" + r.location.file, default: RecordBatch()].append(r, keepRaw: true) }
            let new = batches.sorted { $0.key < $1.key }.map { (path: $0.key, batch: $0.value) }
            if importing { try LedgerBuilder.importFiles(new, into: store) }
            files += new
        }

        /// Reconciles the ledger with its carry; `XCTAssert`s the findings and unknown requests equal a from-scratch
        /// run's over every file so far, and returns what the carry did.
        func reconcile(file: StaticString = #filePath, line: UInt = #line) throws -> (mode: RequestCarry.Mode, computed: Int) {
            let asOf = LedgerBuilder.ms(LedgerBuilder.muchLater)
            let advanced = try store.advanceCarryGeneration()
            let generation = RequestCarry.Generation(previous: advanced.previous, next: advanced.next)
            let outcome = try Reconciler.run(
                try store.factReader(), config: config, asOfMs: asOf, graceMs: 86_400_000, carry: (carry, generation))
            let fresh = try AuditStore(path: TestPaths.scratch() + "/audit.sqlite")
            try LedgerBuilder.importFiles(files, into: fresh)
            let scratch = try Reconciler.run(try fresh.factReader(), config: config, asOfMs: asOf, graceMs: 86_400_000)
            XCTAssertEqual(try outcome.findings.all(), try scratch.findings.all(), "findings", file: file, line: line)
            XCTAssertEqual(outcome.unlinked.count, scratch.unlinked.count, "answers to unknown requests", file: file, line: line)
            XCTAssertEqual(outcome.unlinked.first?.location, scratch.unlinked.first?.location, file: file, line: line)
            return try XCTUnwrap(outcome.carry)
        }
    }

    /// Night 1: R1 answered and credited, R2 not answered yet, R3's answer without its line yet, R4 answered.
    static func firstNight() -> LedgerBuilder {
        let b = LedgerBuilder()
        b.client("1001", user: "u1", at: "09:00")
        b.request("R1", ids: ["1001"], user: "u1", granted: true, at: "09:00")
        b.response(for: "R1", items: ["1001"], at: "09:01")
        b.client("1002", user: "u2", at: "10:00")
        b.request("R2", ids: ["1002"], user: "u2", granted: true, at: "10:00")
        b.response(for: "R3", items: ["1003"], at: "11:01")
        b.request("R4", ids: ["1004"], user: "u4", granted: true, at: "12:00")
        b.response(for: "R4", items: ["1004"], at: "12:01")
        return b
    }

    /// Night 2: R2's answer, R3's line, a new request R5 and its answer (`granted`: whether the server logged R5 as
    /// granted; either way its facts are the same size).
    static func secondNight(granted: Bool = false) -> LedgerBuilder {
        let b = LedgerBuilder()
        b.response(for: "R2", items: ["1002"], at: "2026-10-02T00:00:02Z")
        b.request("R3", ids: ["1003"], user: "u3", granted: true, at: "2026-10-02T00:00:01Z")
        b.client("1005", user: "u5", at: "2026-10-02T08:00:00Z")
        b.request("R5", ids: ["1005"], user: "u5", granted: granted, at: "2026-10-02T08:00:00Z")
        b.response(for: "R5", items: ["1005"], at: "2026-10-02T08:00:03Z")
        return b
    }

    func testANightComputesOnlyTheRequestsItsFactsNameAndFindsWhatAFullRunFinds() throws {
        let nights = try Nights()
        try nights.add(Self.firstNight(), as: "n1")
        let first = try nights.reconcile()
        XCTAssertEqual(first.mode, .full(reason: "no carry from an earlier run"))
        XCTAssertEqual(first.computed, 4)
        let night1 = try XCTUnwrap(nights.store.factReader().chunkMark(.requests, upTo: nil)).highWater
        try nights.add(Self.secondNight(), as: "n2")
        // R2 and R3 (open after night 1) and R5; R1 and R4 carried.
        let second = try nights.reconcile()
        XCTAssertEqual(second.mode, .incremental(after: night1))
        XCTAssertEqual(second.computed, 3)
        // A night with nothing new computes nothing and finds the same.
        let third = try nights.reconcile()
        XCTAssertEqual(third.computed, 0)
    }

    func testANewFactNamingACompleteRequestHasEveryRequestComputedAgain() throws {
        let nights = try Nights()
        try nights.add(Self.firstNight(), as: "n1")
        _ = try nights.reconcile()
        // A later answer to R1, answered on night 1: R1's answer changes (rule 2: the last one is final).
        let late = Self.secondNight()
        late.response(for: "R1", status: 21005, items: [], at: "2026-10-02T09:00:00Z")
        try nights.add(late, as: "n2")
        let second = try nights.reconcile()
        XCTAssertEqual(second.mode, .full(reason: "a new fact names a complete request"))
        XCTAssertEqual(second.computed, 5)
        let after = LedgerBuilder()
        after.request("R6", ids: ["1006"], user: "u6", granted: true, at: "2026-10-03T08:00:00Z")
        try nights.add(after, as: "n3")
        let third = try nights.reconcile()
        guard case .incremental = third.mode else { return XCTFail("\(third.mode)") }
        XCTAssertEqual(third.computed, 1)
    }

    func testACarryNotMadeFromThisLedgerAndBuildIsNotUsed() throws {
        let nights = try Nights()
        try nights.add(Self.firstNight(), as: "n1")
        _ = try nights.reconcile()
        let state = nights.carry + "/state.json"
        // A run killed after the state was removed (the files were changing): nothing to trust.
        try FileManager.default.removeItem(atPath: state)
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "no carry from an earlier run"))
        try Data("{\"format\": 1".utf8).write(to: URL(fileURLWithPath: state))
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "its state is unreadable"))
        var stored = try XCTUnwrap(RequestCarry.State.decoded(Data(contentsOf: URL(fileURLWithPath: state))))
        stored.build += " rebuilt"
        try Data(stored.encoded()).write(to: URL(fileURLWithPath: state))
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "made by another build"))
        // A log of a year of nights (a stretch a partition each) is made again in one piece.
        _ = try nights.reconcile()
        stored = try XCTUnwrap(RequestCarry.State.decoded(Data(contentsOf: URL(fileURLWithPath: state))))
        stored.outputSegments[0] += Array(repeating: CarryLog.Segment(offset: 0, count: 0, check: 0), count: 64 * 256)
        try Data(stored.encoded()).write(to: URL(fileURLWithPath: state))
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "its log in too many pieces"))
        nights.config.bundleIds = ["com.example.other"]
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "made for other bundle ids"))
        // Then carried again: only the two open requests computed (R2 unanswered, R3's answer without its line).
        XCTAssertEqual(try nights.reconcile().computed, 2)
        // Its outputs cut short (a disk that lost their end).
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: nights.carry + "/outputs.log"))
        try log.truncate(atOffset: 10)
        try log.close()
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "its files damaged or cut short"))
        // A copy of night 1's notification in a file that comes before night 1's: night 1's is the re-delivery now.
        let notified = LedgerBuilder()
        notified.signed(
            .notificationV2, items: [LedgerBuilder.item("1001")], notification: "DID_RENEW", uuid: "N1", at: "2026-10-02T00:00:00Z")
        try nights.add(notified, as: "n1")
        XCTAssertEqual(try nights.reconcile().computed, 2)
        try nights.add(notified, as: "a0")
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "other notifications re-delivered since"))
        // A file forgotten (`--forget-missing`): its request facts are gone.
        try nights.store.removeFile(path: "n1/verify.jsonl")
        nights.forget("n1/verify.jsonl")
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "files read again or removed since"))
    }

    /// The newest file delivered again, corrected in place with a change of the same size (its rows deleted and
    /// inserted again under the same file and chunk ids): not taken for the file the carry was made from.
    func testAFileReadAgainWholeHasEveryRequestComputedAgain() throws {
        let nights = try Nights()
        try nights.add(Self.firstNight(), as: "n1")
        _ = try nights.reconcile()
        let second = Self.secondNight()
        try nights.add(second, as: "n2")
        XCTAssertEqual(try nights.reconcile().computed, 3)
        let corrected = Self.secondNight()
        corrected.ledgerResponses[1].environment = "Sandbox"  // R5's answer, "Production" before: as long
        XCTAssertEqual("Sandbox".utf8.count, "Production".utf8.count - 3)
        try nights.replace("n2/verify.jsonl", with: corrected, "verify.jsonl")
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "files read again or removed since"))
    }

    /// A notification naming an answered request delivered again on a later night: a re-delivery is left out of its
    /// request, but it still names the request, which is not computed apart from its line (it was counted an answer
    /// to an unknown request, found reading the change again).
    func testARedeliveryNamingACompleteRequestHasEveryRequestComputedAgain() throws {
        let nights = try Nights()
        let first = Self.firstNight()
        first.signed(
            .notificationV2, for: "R1", items: [LedgerBuilder.item("1001")], notification: "ONE_TIME_CHARGE", uuid: "N1", at: "09:02")
        try nights.add(first, as: "n1")
        _ = try nights.reconcile()
        let again = LedgerBuilder()
        again.signed(
            .notificationV2, for: "R1", items: [LedgerBuilder.item("1001")], notification: "ONE_TIME_CHARGE", uuid: "N1",
            at: "2026-10-02T09:02:00Z")
        try nights.add(again, as: "n2")
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "a new fact names a complete request"))
    }

    /// Another ledger of the same shape (the same nights, one answer corrected to a text of the same size: the same
    /// file, chunk and record ids and sizes) given the first one's carry — a ledger rebuilt after a correction, a
    /// "what if" copy sharing an output folder — and a ledger restored from the night before's backup: neither is
    /// the ledger the carry was made for (found by an operator's retest).
    func testACarryIsForTheLedgerItWasMadeForAsItWas() throws {
        let nights = try Nights()
        try nights.add(Self.firstNight(), as: "n1")
        try nights.add(Self.secondNight(), as: "n2")
        _ = try nights.reconcile()
        let corrected = Self.secondNight(granted: true)
        let other = try Nights(ledger: nights.root + "/other.sqlite", carry: nights.carry)
        try other.add(Self.firstNight(), as: "n1")
        try other.add(corrected, as: "n2")
        XCTAssertEqual(
            try other.reconcile().mode, .full(reason: "made for another ledger, or for this one before it was rebuilt or restored"))
        // The backup of a night, the night run, the backup restored, the night delivered corrected.
        let backup = try Nights()
        try backup.add(Self.firstNight(), as: "n1")
        _ = try backup.reconcile()
        try FileManager.default.copyItem(atPath: backup.root + "/audit.sqlite", toPath: backup.root + "/backup.sqlite")
        try backup.add(Self.secondNight(), as: "n2")
        guard case .incremental = try backup.reconcile().mode else { return XCTFail("the night after the backup") }
        let restored = try Nights(ledger: backup.root + "/backup.sqlite", carry: backup.carry)
        try restored.add(Self.firstNight(), as: "n1", importing: false)
        try restored.add(corrected, as: "n2")
        XCTAssertEqual(
            try restored.reconcile().mode, .full(reason: "made for another ledger, or for this one before it was rebuilt or restored"))
    }

    /// A bit flipped in any of the carry's files (a damaged disk): nothing of it is used, and the findings are right.
    func testADamagedCarryIsNotUsed() throws {
        let nights = try Nights()
        try nights.add(Self.firstNight(), as: "n1")
        _ = try nights.reconcile()
        try nights.add(Self.secondNight(), as: "n2")
        try nights.flip("outputs.log", at: 0)
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "its log damaged"))
        try nights.flip("requests.bin", at: 5)
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "its files damaged or cut short"))
        let state = try Data(contentsOf: URL(fileURLWithPath: nights.carry + "/state.json"))
        let text = String(decoding: state, as: UTF8.self)
        let length = try XCTUnwrap(text.range(of: #""outputLength":\d+"#, options: .regularExpression))
        try Data(text.replacingCharacters(in: length, with: #""outputLength":1"#).utf8).write(
            to: URL(fileURLWithPath: nights.carry + "/state.json"))
        XCTAssertEqual(try nights.reconcile().mode, .full(reason: "its state is unreadable"))
        guard case .incremental = try nights.reconcile().mode else { return XCTFail("made again, then used") }
    }
}

extension RequestCarryTests.Nights {
    /// Leaves out a file the store no longer holds.
    func forget(_ path: String) { files.removeAll { $0.path == path } }

    /// Imports `night`'s `name` again under `path` (a file delivered again, corrected: read again whole).
    func replace(_ path: String, with night: LedgerBuilder, _ name: String) throws {
        var batch = RecordBatch()
        for r in night.ledger.serverRequests where r.location.file == name { batch.append(r) }
        for r in night.ledger.appleRecords where r.location.file == name { batch.append(r, keepRaw: true) }
        try LedgerBuilder.importFiles([(path, batch)], into: store)
        files = files.map { $0.path == path ? (path, batch) : $0 }
    }

    /// Flips one bit of byte `at` of the carry's file `name`.
    func flip(_ name: String, at: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: carry + "/" + name))
        data[at] ^= 1
        try data.write(to: URL(fileURLWithPath: carry + "/" + name))
    }
}
