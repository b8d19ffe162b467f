import Foundation
import IAPAuditModel

/// Reads the JSON Lines records of one slice of a file into a `RecordBatch`: each line through the
/// fast path (`LineTape` and the shape's line reader) when it can say for sure, else through the
/// strict reader (`JSONTape`, `RecordDispatcher`), which gives the same result or the rejection.
///
/// Each line is read as the kind of record it is (a mixed file: server-log lines beside wrapped
/// verifyReceipt answers…): a line the file's own fast reader gives up on is offered to the other
/// fast readers (each takes only lines `RecordShape.of` gives its shape), then to the strict reader,
/// which reads it by its own shape when that is a known one, else by the file's (whose messages then
/// say what is missing). One reader per thread: it reuses its token buffer and field slots from line
/// to line.
final class LineRecordReader {
    private var tape: LineTape
    private let slots = UnsafeMutablePointer<Int32>.allocate(capacity: VerifyLineReader.slotCount)
    let shape: RecordShape
    let file: InputFile
    let checker: any SignatureChecking
    /// Lines the fast path handed to the strict reader since the last `takeStrictLines`.
    private var strictLines = 0
    /// The first line (1-based) read as each of `fastShapes` (`Int.max`: none yet), and as any other
    /// shape (read strictly).
    private var fastFirstLines = [Int](repeating: .max, count: LineRecordReader.fastShapes.count)
    private var otherFirstLines: [RecordShape: Int] = [:]

    /// The shapes the fast path reads, the file's own tried first.
    static let fastShapes: [RecordShape] = [.clientReport, .serverRequest, .wrappedVerifyResponse, .bareVerifyResponse]
    private let fastOrder: [Int]

    func takeStrictLines() -> Int {
        defer { strictLines = 0 }
        return strictLines
    }

    /// The first line read as each kind of record since the last call (what a mixed file holds).
    func takeShapes() -> [RecordShape: Int] {
        var shapes = otherFirstLines
        for (k, line) in fastFirstLines.enumerated() where line != .max {
            shapes[Self.fastShapes[k]] = min(line, shapes[Self.fastShapes[k]] ?? .max)
        }
        otherFirstLines = [:]
        fastFirstLines = [Int](repeating: .max, count: Self.fastShapes.count)
        return shapes
    }

    /// false: every line goes to the strict reader.
    let fastPath: Bool

    init(shape: RecordShape, file: InputFile, checker: any SignatureChecking, fastPath: Bool = true) {
        self.fastPath = fastPath
        self.shape = shape
        self.file = file
        self.checker = checker
        tape = LineTape(limits: file.limits)
        let own = Self.fastShapes.firstIndex(of: shape)
        fastOrder = (own.map { [$0] } ?? []) + Self.fastShapes.indices.filter { $0 != own }
    }

    deinit { slots.deallocate() }

    /// Appends the record of `line` (at `bytes`) to `batch`, or its rejection.
    func read(_ line: InputFile.LineRange, bytes: UnsafePointer<UInt8>, into batch: inout RecordBatch) {
        if fastPath, tape.parse(bytes + line.start, line.end - line.start) {
            let view = TapeView(tape)
            let number = UInt32(line.number)
            for k in fastOrder {
                do throws(Unsure) {
                    switch k {
                    case 0: try ClientLineReader.read(view, line: number, into: &batch, slots: slots)
                    case 1: try ServerLineReader.read(view, line: number, into: &batch, slots: slots)
                    case 2: try VerifyLineReader.readWrapped(view, line: number, into: &batch, slots: slots)
                    default: try VerifyLineReader.readBare(view, line: number, into: &batch, slots: slots)
                    }
                    if line.number < fastFirstLines[k] { fastFirstLines[k] = line.number }
                    return
                } catch {
                    // What the fast reader appended before it gave up is dropped before the next one.
                    batch.dropPartialRows()
                }
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
            let record = try JSONField.parseLine(Array(raw), limits: file.limits)
            let own = RecordShape.of(record)
            let used = own.kind != .other ? own : shape
            if let k = Self.fastShapes.firstIndex(of: used) {
                fastFirstLines[k] = min(fastFirstLines[k], line.number)
            } else {
                otherFirstLines[used] = min(otherFirstLines[used] ?? .max, line.number)
            }
            RecordDispatcher.add(record, shape: used, raw: text, at: location, checker, keepRaw: false, into: &batch)
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
