import Foundation
import IAPAuditModel

/// Reads the JSON Lines records of one slice of a file into a `RecordBatch`: each line through the
/// fast path (`LineTape` and the shape's line reader) when it can say for sure, else through the
/// strict reader (`JSONTape`, `RecordDispatcher`), which gives the same result or the rejection.
/// One reader per thread: it reuses its token buffer and field slots from line to line.
final class LineRecordReader {
    private var tape = LineTape()
    private let slots = UnsafeMutablePointer<Int32>.allocate(capacity: VerifyLineReader.slotCount)
    let shape: RecordShape
    let file: InputFile
    let checker: any SignatureChecking
    /// Lines the fast path handed to the strict reader since the last `takeStrictLines`.
    private var strictLines = 0

    func takeStrictLines() -> Int {
        defer { strictLines = 0 }
        return strictLines
    }

    /// false: every line goes to the strict reader.
    let fastPath: Bool

    init(shape: RecordShape, file: InputFile, checker: any SignatureChecking, fastPath: Bool = true) {
        self.fastPath = fastPath
        self.shape = shape
        self.file = file
        self.checker = checker
    }

    deinit { slots.deallocate() }

    /// Appends the record of `line` (at `bytes`) to `batch`, or its rejection.
    func read(_ line: InputFile.LineRange, bytes: UnsafePointer<UInt8>, into batch: inout RecordBatch) {
        if fastPath, tape.parse(bytes + line.start, line.end - line.start) {
            let view = TapeView(tape)
            let number = UInt32(line.number)
            do throws(Unsure) {
                switch shape {
                case .clientReport: try ClientLineReader.read(view, line: number, into: &batch, slots: slots)
                case .serverRequest: try ServerLineReader.read(view, line: number, into: &batch, slots: slots)
                case .wrappedVerifyResponse: try VerifyLineReader.readWrapped(view, line: number, into: &batch, slots: slots)
                case .bareVerifyResponse: try VerifyLineReader.readBare(view, line: number, into: &batch, slots: slots)
                default: throw Unsure()
                }
                return
            } catch {
                // What the fast reader appended before it gave up is dropped by `readStrictly`.
            }
        }
        readStrictly(line, bytes: bytes, into: &batch)
    }

    private func readStrictly(_ line: InputFile.LineRange, bytes: UnsafePointer<UInt8>, into batch: inout RecordBatch) {
        strictLines += 1
        batch.dropPartialRows()
        let raw = UnsafeBufferPointer(start: bytes + line.start, count: line.end - line.start)
        let text = String(decoding: raw, as: UTF8.self)
        let location = file.location(line.number)
        do {
            // The bytes as they are (decoding them would replace invalid UTF-8 with U+FFFD and hide it).
            let record = try JSONField.parseLine(Array(raw))
            RecordDispatcher.add(record, shape: shape, raw: text, at: location, checker, keepRaw: false, into: &batch)
        } catch {
            batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: text))
        }
    }
}

extension RecordBatch {
    /// Drops what a fast reader appended for a line before giving up on it: its rows are appended
    /// last, so only items, renewals and ids past the last complete row can be left over.
    mutating func dropPartialRows() {
        let itemEnd = appleRecords.last.map { Int($0.items.upperBound) } ?? 0
        if appleTransactions.count > itemEnd { appleTransactions.removeSubrange(itemEnd...) }
        let renewalEnd = appleRecords.last.map { Int($0.pendingRenewals.upperBound) } ?? 0
        if pendingRenewals.count > renewalEnd { pendingRenewals.removeSubrange(renewalEnd...) }
        let idEnd = serverRequests.last.map { Int($0.creditedTransactionIds?.upperBound ?? $0.transactionIds.upperBound) } ?? 0
        if ids.count > idEnd { ids.removeSubrange(idEnd...) }
    }
}
