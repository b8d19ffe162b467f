import Foundation
import IAPAuditModel

/// What the benchmark's JSON probe measures of our own readers (single thread, no store): the
/// strict scanner alone, and the scanner with the verifyReceipt fast reader filling rows.
/// Package-visible for `iap-audit-json-probe`; not part of the product's interface.
package enum JSONLinesProbe {
    package struct Pass: Sendable {
        package var lines = 0
        /// Lines the fast path gave up on (a strict reader would then read them).
        package var failedLines = 0
        /// Records read into rows, and their purchases (the records pass).
        package var records = 0
        package var items = 0
        package var parseSeconds = 0.0
    }

    /// Scans each line of `bytes` with `LineTape` (full RFC 8259 validation, value positions recorded).
    package static func tape(_ bytes: UnsafeBufferPointer<UInt8>) -> Pass {
        var tape = LineTape()
        var pass = Pass()
        let started = Date()
        forEachLine(bytes) { start, count in
            pass.lines += 1
            if !tape.parse(bytes.baseAddress! + start, count) { pass.failedLines += 1 }
        }
        pass.parseSeconds = Date().timeIntervalSince(started)
        return pass
    }

    /// Reads each line as a wrapped verifyReceipt response with the fast reader, into rows (a batch
    /// emptied every 8,192 lines, as the importer hands batches on).
    package static func verifyRecords(_ bytes: UnsafeBufferPointer<UInt8>) -> Pass {
        var tape = LineTape()
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: VerifyLineReader.slotCount)
        defer { slots.deallocate() }
        var batch = RecordBatch()
        var pass = Pass()
        let started = Date()
        forEachLine(bytes) { start, count in
            pass.lines += 1
            var ok = tape.parse(bytes.baseAddress! + start, count)
            if ok {
                do throws(Unsure) {
                    try VerifyLineReader.readWrapped(
                        TapeView(tape), line: UInt32(pass.lines), into: &batch, slots: slots)
                } catch {
                    ok = false
                }
            }
            if !ok {
                pass.failedLines += 1
                batch.dropPartialRows()
            }
            if batch.appleRecords.count == 8192 {
                pass.records += batch.appleRecords.count
                pass.items += batch.appleTransactions.count
                batch = RecordBatch()
            }
        }
        pass.records += batch.appleRecords.count
        pass.items += batch.appleTransactions.count
        pass.parseSeconds = Date().timeIntervalSince(started)
        return pass
    }

    private static func forEachLine(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int) -> Void) {
        var start = 0
        while start < bytes.count {
            var end = bytes.count
            if let found = memchr(bytes.baseAddress! + start, 10, bytes.count - start) {
                end = UnsafeRawPointer(bytes.baseAddress!).distance(to: UnsafeRawPointer(found))
            }
            if end > start { body(start, end - start) }
            start = end + 1
        }
    }
}
