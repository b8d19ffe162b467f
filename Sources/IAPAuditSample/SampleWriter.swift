import Foundation
import IAPAuditModel

/// One client report before it is written as a JSON line or a CSV row.
struct SampleClientLine {
    /// Seconds since 1970 UTC.
    var at: Int64
    var userId: String
    var deviceId: String
    var transactionId: String?
    var originalTransactionId: String?
    var productId: String
    /// `purchasing`, `purchased`, `failed`, `deferred` or `restored`.
    var state: String
    /// SKError code (2 = cancelled); failed lines only.
    var errorCode: Int? = nil
    var quantity: Int? = nil

    static let csvHeader = "ts,user_id,device_id,transaction_id,original_transaction_id,product_id,state,error_code,quantity"

    /// The JSON Lines form: ISO 8601 `ts`; `error_code` and `quantity` only when known.
    var json: SampleJSON {
        var o = SampleObject()
        o.add("ts", .string(SampleClock.iso(at)))
        o.add("user_id", .string(userId))
        o.add("device_id", .string(deviceId))
        o.add("transaction_id", .text(transactionId))
        o.add("original_transaction_id", .text(originalTransactionId))
        o.add("product_id", .string(productId))
        o.add("state", .string(state))
        o.add("error_code", ifPresent: errorCode.map { .int(Int64($0)) })
        o.add("quantity", ifPresent: quantity.map { .int(Int64($0)) })
        return o.json
    }

    /// The CSV form: `ts` in epoch milliseconds, an empty field for null.
    var csvRow: String {
        let fields: [String?] = [
            String(at * 1000), userId, deviceId, transactionId, originalTransactionId, productId, state,
            errorCode.map(String.init), quantity.map(String.init),
        ]
        return fields.map { SampleClientLine.csvField($0 ?? "") }.joined(separator: ",")
    }

    /// RFC 4180 quoting when a field needs it.
    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Every record of the three inputs, kept with its time; rendered time-ordered.
struct SampleLog {
    private var client: [(at: Int64, order: Int, line: SampleClientLine)] = []
    private var server: [(at: Int64, order: Int, text: String)] = []
    private var verify: [(at: Int64, order: Int, text: String)] = []
    /// Apple's signed answers to requests, Server API pages and notifications (`signed.jsonl`,
    /// `history.jsonl`, `notifications.jsonl`).
    private var signed: [(at: Int64, order: Int, text: String)] = []
    private var history: [(at: Int64, order: Int, text: String)] = []
    private var notifications: [(at: Int64, order: Int, text: String)] = []
    /// Look Up Order ID answers support fetched (`order-lookup.jsonl`).
    private var orderLookups: [(at: Int64, order: Int, text: String)] = []
    private var order = 0

    mutating func addClient(_ line: SampleClientLine) {
        order += 1
        client.append((line.at, order, line))
    }

    /// A server-log record at `at` (its `ts`).
    mutating func addServer(at: Int64, _ record: SampleJSON) {
        order += 1
        server.append((at, order, record.rendered))
    }

    /// A wrapped verify response received at `at`.
    mutating func addVerify(requestId: String, receivedAt at: Int64, _ response: SampleJSON) {
        verify.append(wrapped("request_id", requestId, receivedAt: at, "response", response))
    }

    /// A signed transaction (compact JWS) answering request `requestId`, received at `at`.
    mutating func addSigned(requestId: String, receivedAt at: Int64, _ jws: String) {
        signed.append(wrapped("request_id", requestId, receivedAt: at, "signed_transaction", .string(jws)))
    }

    /// A Get Transaction History page fetched at `at` (bare: it sets no as-of).
    mutating func addHistory(at: Int64, _ page: SampleJSON) {
        order += 1
        history.append((at, order, page.rendered))
    }

    /// A notification body signed at `at` (bare: it sets no as-of).
    mutating func addNotification(at: Int64, _ body: SampleJSON) {
        order += 1
        notifications.append((at, order, body.rendered))
    }

    /// A Look Up Order ID answer for the Apple order id `orderId` (on the customer's invoice), received at
    /// `at`, wrapped with the id it was asked about (the answer does not repeat it).
    mutating func addOrderLookup(orderId: String, receivedAt at: Int64, _ response: SampleJSON) {
        orderLookups.append(wrapped("order_id", orderId, receivedAt: at, "response", response))
    }

    /// An answer as the wrapped files hold it, the next in order: the id it answers (under `idKey`), when it was received
    /// (`received_at`), the answer itself (under `key`).
    private mutating func wrapped(_ idKey: String, _ id: String, receivedAt at: Int64, _ key: String, _ answer: SampleJSON) -> (
        at: Int64, order: Int, text: String
    ) {
        order += 1
        let line = SampleJSON.object([(idKey, .string(id)), ("received_at", .string(SampleClock.iso(at))), (key, answer)])
        return (at, order, line.rendered)
    }

    /// The newest timestamp of any record: the as-of a reconciler defaults to.
    var newest: Int64 {
        max(
            client.map(\.at).max() ?? 0, server.map(\.at).max() ?? 0, verify.map(\.at).max() ?? 0, signed.map(\.at).max() ?? 0,
            orderLookups.map(\.at).max() ?? 0)
    }

    /// Writes the three inputs into `directory`, each sorted by time (ties keep the order
    /// written). About `csvShare` of the client reports go to `client.csv`, chosen by `random`.
    /// - Throws: Foundation's file errors.
    func write(to directory: String, csvShare: Double, random: inout SampleRandom) throws -> SampleFiles {
        var files = SampleFiles()
        let json = try SampleFileWriter(directory: directory, name: "client.jsonl")
        let csv = try SampleFileWriter(directory: directory, name: "client.csv")
        try csv.append(SampleClientLine.csvHeader)
        for entry in client.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) {
            if random.chance(csvShare) {
                try csv.append(entry.line.csvRow)
                files.clientCSVRows += 1
            } else {
                try json.append(entry.line.json.rendered)
                files.clientJSONLines += 1
            }
        }
        let server = try SampleFileWriter(directory: directory, name: "server.jsonl")
        for entry in self.server.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) { try server.append(entry.text) }
        files.serverLines = self.server.count
        var paths = try [json, csv, server].map { try $0.close() }
        for (name, entries) in [
            ("verify.jsonl", verify), ("signed.jsonl", signed), ("history.jsonl", history), ("notifications.jsonl", notifications),
            ("order-lookup.jsonl", orderLookups),
        ] {
            let file = try SampleFileWriter(directory: directory, name: name)
            for entry in entries.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) { try file.append(entry.text) }
            paths.append(try file.close())
            files.lines[name] = entries.count
        }
        files.verifyLines = verify.count
        files.paths = paths
        return files
    }
}

/// What `SampleLog.write` wrote: paths and record counts.
struct SampleFiles {
    var paths: [String] = []
    var clientJSONLines = 0
    var clientCSVRows = 0
    var serverLines = 0
    var verifyLines = 0
    /// Lines of the Apple files by name (`verify.jsonl`, `signed.jsonl`, `history.jsonl`, `notifications.jsonl`,
    /// `order-lookup.jsonl`).
    var lines: [String: Int] = [:]
}

/// Writes one file line by line through a 1 MB buffer (the file is replaced).
final class SampleFileWriter {
    let path: String
    private let handle: FileHandle
    private var buffer = ""

    /// - Throws: Foundation's error when the file cannot be created.
    init(directory: String, name: String) throws {
        path = (directory as NSString).appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Appends `line` and a newline.
    /// - Throws: Foundation's error when the buffer cannot be written.
    func append(_ line: String) throws {
        buffer += line
        buffer += "\n"
        if buffer.utf8.count >= 1 << 20 {
            try handle.write(contentsOf: Data(buffer.utf8))
            buffer = ""
        }
    }

    /// Writes a whole file at once; returns its path.
    static func write(_ text: String, to directory: String, name: String) throws -> String {
        let file = try SampleFileWriter(directory: directory, name: name)
        file.buffer = text
        return try file.close()
    }

    /// Writes what is buffered and closes the file; returns its path.
    func close() throws -> String {
        try handle.write(contentsOf: Data(buffer.utf8))
        buffer = ""
        try handle.close()
        return path
    }
}
