// iap-audit-fuzz: a seeded mutation driver for the readers (docs/security.md, Fuzzing). It runs without libFuzzer:
// it mutates the files of a corpus folder and feeds each mutant to format detection and every reader
// (`FileImporter.stream`, signatures checked against the sample's test root), then decodes the facts each batch
// encoded, checking what must hold of any input: no crash, every record imported or rejected (in = imported +
// rejected) with a line inside the file, every fact buffer read to its end, and for JSON Lines the strict reader
// importing and rejecting the same lines as the fast path.
//
//   iap-audit-fuzz CORPUS --out OUT [--seed N] [--seconds S] [--jws-anchor PEM] [--mutate-facts]
//   iap-audit-fuzz --replay FILE [--out OUT]       (one input, as the run read it: a kept crash)
//
// Each mutant is written to OUT/current (and what it is to OUT/current.txt) before it is read: when the process
// dies, that file is the input that killed it (scripts/fuzz.sh keeps it in fuzz-crashes/). An input breaking an
// invariant is kept as OUT/failure and the driver exits 1. Exit 0: the time ran out with nothing found.
import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel

/// SplitMix64: the same seed, the same mutants.
struct Random {
    private var bits: SplitMix64
    init(state: UInt64) { bits = SplitMix64(seed: state) }
    mutating func next() -> UInt64 { bits.next() }
    /// A number in `0..<n` (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// The mutations, each on a file's bytes; `other` is a second corpus file (splicing).
enum Mutation: CaseIterable {
    case flipBit, setByte, insertBytes, deleteRange, truncate, splice, repeatChunk, deepNesting, longDigits, escapes, spliceLine
    case duplicateLine

    /// Bytes a mutation writes that JSON, CSV and base64 readers give meaning to.
    static let interesting: [UInt8] = Array("\"{}[],:\\\n\r\t 0-+.eE/=".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF, 0xEF, 0xBB, 0xBF]
    static let escapeTexts = [
        "\\u0000", "\\ud800", "\\udc00\\ud800", "\\uZZZZ", "\\u12", "\\", "\\\\\\\"", "\\x41", "\\/", "\\\"password\\\": 1",
        "\"p\\u0061ssword\": {\"a\": [1]}", "\u{1B}[2J", "\u{2028}", "\u{FEFF}", "\\n", "\r\n", "\u{10FFFF}",
    ]

    func apply(_ data: inout [UInt8], other: [UInt8], _ random: inout Random) {
        let n = data.count
        let at = random.below(n + 1)
        switch self {
        case .flipBit:
            guard n > 0 else { return }
            data[random.below(n)] ^= 1 << UInt8(random.below(8))
        case .setByte:
            guard n > 0 else { return }
            data[random.below(n)] =
                random.chance(70) ? Self.interesting[random.below(Self.interesting.count)] : UInt8(truncatingIfNeeded: random.next())
        case .insertBytes:
            let bytes = (0..<(1 + random.below(8))).map { _ in
                random.chance(70) ? Self.interesting[random.below(Self.interesting.count)] : UInt8(truncatingIfNeeded: random.next())
            }
            data.insert(contentsOf: bytes, at: at)
        case .deleteRange:
            guard n > 0 else { return }
            let start = random.below(n)
            data.removeSubrange(start..<min(n, start + 1 + random.below(16)))
        case .truncate:
            data.removeSubrange(at..<n)
        case .splice:
            guard !other.isEmpty else { return }
            data = Array(data[..<at]) + Array(other[random.below(other.count)...])
        case .repeatChunk:
            guard n > 0 else { return }
            let start = random.below(n)
            let chunk = data[start..<min(n, start + 1 + random.below(256))]
            let times = 1 + random.below(max(1, min(1000, 65_536 / chunk.count)))
            data.insert(contentsOf: Array(repeating: Array(chunk), count: times).joined(), at: start)
        case .deepNesting:
            let depth = [10, 100, 1000, 5000, 20_000][random.below(5)]
            let open = ["[", "{\"a\":", "{\"response\":", "[{\"in_app\":"][random.below(4)]
            data.insert(contentsOf: Array(String(repeating: open, count: depth).utf8), at: at)
        case .longDigits:
            let digits = String(repeating: "9", count: [20, 40, 400, 5000][random.below(4)])
            let text = [digits, "-" + digits, "0." + digits, "1e" + digits, digits + "e-99999", "1.5e308", "-0"][random.below(7)]
            data.insert(contentsOf: Array(text.utf8), at: at)
        case .escapes:
            data.insert(contentsOf: Array(Self.escapeTexts[random.below(Self.escapeTexts.count)].utf8), at: at)
        case .spliceLine:
            let lines = other.split(separator: 0x0A, omittingEmptySubsequences: true)
            guard !lines.isEmpty else { return }
            let line = Array(lines[random.below(lines.count)]) + [0x0A]
            let start = data[..<at].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            data.insert(contentsOf: line, at: start)
        case .duplicateLine:
            let lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)
            guard !lines.isEmpty else { return }
            data.append(contentsOf: [0x0A] + Array(lines[random.below(lines.count)]) + [0x0A])
        }
    }
}

/// What must hold of any input, checked after it was read; nil when it holds.
struct Invariants {
    /// Reads `bytes` as the file `path` and checks them; a JSON Lines file is read again by the strict reader alone, which
    /// must import and reject the same lines as the fast path. Throws only what a sink threw (nothing here does).
    static func check(_ bytes: [UInt8], path: String, checker: any SignatureChecking, scratch: String) throws -> String? {
        let (fast, problem) = try read(bytes, path: path, checker: checker, scratch: scratch, fastPath: true)
        guard problem == nil, fast.format == .jsonLines else { return problem }
        let (strict, strictProblem) = try read(bytes, path: path, checker: checker, scratch: scratch, fastPath: false)
        if let strictProblem { return "strict reader: " + strictProblem }
        if (fast.imported, fast.rejectedLines) != (strict.imported, strict.rejectedLines) {
            return "the fast path imported \(fast.imported) and rejected lines \(fast.rejectedLines.prefix(10)); "
                + "the strict reader \(strict.imported) and \(strict.rejectedLines.prefix(10))"
        }
        return nil
    }

    /// What one read gave: the format, records imported, the rejected lines in order.
    struct Read {
        var format: SourceFormat
        var imported: Int
        var rejectedLines: [Int]
    }

    static func read(_ bytes: [UInt8], path: String, checker: any SignatureChecking, scratch: String, fastPath: Bool) throws -> (
        Read, String?
    ) {
        let data = Data(bytes)
        let file = InputFile(path: path, data: data, sha256: Digest.sha256Hex(data))
        var problems: [String] = []
        var imported = 0
        var rejected = 0
        var badLines: [Int] = []
        // Lines end in LF, CR LF or a lone CR (the readers take all three).
        var lineCount = 1
        for (i, b) in bytes.enumerated() where b == 0x0A || (b == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A)) {
            lineCount += 1
        }
        var rejectedLines: [Int] = []
        let sink = RecordSink { batch in
            imported += batch.recordCount
            rejected += batch.rejections.count
            rejectedLines += batch.rejections.map(\.location.line)
            badLines += batch.rejections.map(\.location.line).filter { $0 < 1 || $0 > lineCount }
            if let problem = facts(of: batch) { problems.append(problem) }
        }
        let result = try FileImporter.stream(file, checker: checker, sink: sink, fastPath: fastPath, scratchDirectory: scratch)
        if result.status == .imported || result.status == .rejected {
            if result.recordsIn != result.recordsImported + result.recordsRejected {
                problems.append(
                    "\(result.format.rawValue): \(result.recordsIn) in != \(result.recordsImported) imported + \(result.recordsRejected) rejected"
                )
            }
            if result.recordsImported != imported || result.recordsRejected != rejected {
                problems.append("counted \(result.recordsImported) + \(result.recordsRejected), the batches held \(imported) + \(rejected)")
            }
        }
        // A gzip input's lines are its inflated content's: not counted here.
        if !GzipInput.isGzip(data) {
            if result.format == .jsonLines, result.recordsIn > lineCount {
                problems.append("JSON Lines: \(result.recordsIn) records in from \(lineCount) lines")
            }
            if !badLines.isEmpty { problems.append("rejections at lines outside the file: \(badLines.prefix(5))") }
        }
        return (
            Read(format: result.format, imported: imported, rejectedLines: rejectedLines),
            problems.isEmpty ? nil : problems.joined(separator: "; ")
        )
    }

    /// `--mutate-facts` (which `scripts/fuzz.sh` passes): each fact buffer is also decoded with one of its bytes changed
    /// or its end cut; the bounds-checked decoders must throw, never trap (a damaged ledger).
    nonisolated(unsafe) static var factMutations: Random? = nil

    /// Decodes every fact a batch encoded: each buffer is read to its end exactly, each fact of its stream's kinds.
    static func facts(of batch: RecordBatch) -> String? {
        guard var set = batch.facts else { return nil }
        for (stream, part, bytes) in set.take(atLeast: 1) {
            if let problem = decode(bytes, stream: stream, part: part) { return problem }
            if var random = factMutations {
                var mutated = bytes
                if random.chance(50) {
                    mutated[random.below(mutated.count)] = UInt8(truncatingIfNeeded: random.next())
                } else {
                    mutated.removeLast(1 + random.below(mutated.count))
                }
                factMutations = random
                // Whatever it decodes is not checked: only a crash counts.
                if !mutated.isEmpty { _ = decode(mutated, stream: stream, part: part) }
            }
        }
        return nil
    }

    /// Reads `bytes`, facts of `stream`, to their end; a problem when a fact is of another stream's kind or a read
    /// passes the end.
    static func decode(_ bytes: [UInt8], stream: FactStream, part: Int) -> String? {
        bytes.withUnsafeBufferPointer { buffer -> String? in
            var r = FactReader(buffer.baseAddress!, count: buffer.count)
            var ids: [FactId] = []
            var quantities: [RequestLineFact.Quantity] = []
            var items: [LinkedResponseFact.Item] = []
            while !r.isAtEnd {
                let kind = FactKind(rawValue: r.u8())
                switch (stream, kind) {
                case (.requests, .requestLine?): _ = RequestLineFact.read(&r, chunkFile: 1, ids: &ids, creditedQuantities: &quantities)
                case (.requests, .linkedResponse?): _ = LinkedResponseFact.read(&r, chunkFile: 1, items: &items)
                case (.transactions, .client?): _ = ClientFact.read(&r, chunkFile: 1)
                case (.transactions, .revoke?): _ = RevokeFact.read(&r, chunkFile: 1)
                case (.transactions, .listing?): _ = ListingFact.read(&r, chunkFile: 1)
                case (.notifications, .notification?): _ = NotificationFact.read(&r, chunkFile: 1)
                case (.purchases, .purchase?): _ = PurchaseFact.read(&r, chunkFile: 1)
                default: return "a fact of kind \(kind.map { "\($0)" } ?? "unknown") in stream \(stream) part \(part)"
                }
                if r.at > r.end { return "a fact read past its buffer's end (stream \(stream) part \(part))" }
            }
            return nil
        }
    }
}

/// The command line.
struct Options {
    var corpus: String?
    var out = ".build/fuzz"
    var seed: UInt64 = 1
    var seconds = 60.0
    var replay: String?
    var jwsAnchor = "sample-data/test-ca/sample-root-ca.TEST-ONLY.pem"
    var mutateFacts = false

    init(_ arguments: [String]) {
        var i = 0
        func value() -> String {
            i += 1
            guard i < arguments.count else { Self.usage("\(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--out": out = value()
            case "--seed": seed = UInt64(value()) ?? { Self.usage("--seed takes a whole number") }()
            case "--seconds": seconds = Double(value()) ?? { Self.usage("--seconds takes a number") }()
            case "--replay": replay = value()
            case "--jws-anchor": jwsAnchor = value()
            case "--mutate-facts": mutateFacts = true
            case let a where a.hasPrefix("-"): Self.usage("unknown option \(a)")
            case let a: corpus = a
            }
            i += 1
        }
        if corpus == nil && replay == nil { Self.usage("name a CORPUS folder or --replay FILE") }
    }

    static func usage(_ message: String) -> Never {
        FileHandle.standardError.write(
            Data(
                ("iap-audit-fuzz: \(message)\nusage: iap-audit-fuzz CORPUS --out OUT [--seed N] [--seconds S] [--jws-anchor PEM] [--mutate-facts]\n"
                    + "       iap-audit-fuzz --replay FILE [--out OUT]\n").utf8))
        exit(2)
    }
}

/// The corpus's regular files (recursively), sorted by path: (name, bytes).
func corpusFiles(_ folder: String) -> [(String, [UInt8])] {
    guard let walker = FileManager.default.enumerator(atPath: folder) else { Options.usage("cannot list \(folder)") }
    var files: [(String, [UInt8])] = []
    for case let name as String in walker {
        var isFolder: ObjCBool = false
        let path = folder + "/" + name
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else { continue }
        files.append((name, Array(data)))
    }
    return files.sorted { $0.0 < $1.0 }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
try? FileManager.default.createDirectory(atPath: options.out, withIntermediateDirectories: true)
let anchors = FileManager.default.fileExists(atPath: options.jwsAnchor) ? [options.jwsAnchor] : []
let checker = SignatureVerifier(
    jwsAnchors: try TrustAnchors.load(paths: anchors), receiptAnchors: try TrustAnchors.load(paths: []),
    checkAtMs: 1_790_000_000_000)
let current = options.out + "/current"
if options.mutateFacts { Invariants.factMutations = Random(state: options.seed ^ 0xFAC7) }

if let replay = options.replay {
    guard let data = FileManager.default.contents(atPath: replay) else { Options.usage("cannot read \(replay)") }
    let problem = try Invariants.check(Array(data), path: replay, checker: checker, scratch: options.out)
    print(problem.map { "iap-audit-fuzz: \(replay): \($0)" } ?? "iap-audit-fuzz: \(replay): read, every invariant holds")
    exit(problem == nil ? 0 : 1)
}

let corpus = corpusFiles(options.corpus!)
guard !corpus.isEmpty else { Options.usage("\(options.corpus!) holds no file") }
/// The largest mutant fed (bigger ones are cut): the readers' batches are 8,192 lines; a mutant needs no more.
let maxBytes = 1 << 20
let deadline = Date().addingTimeInterval(options.seconds)
var random = Random(state: options.seed)
var iterations = 0
var byFormat: [String: Int] = [:]
print("iap-audit-fuzz: \(corpus.count) corpus files, seed \(options.seed), \(Int(options.seconds)) s, mutants in \(current)")
while Date() < deadline {
    iterations += 1
    let (name, original) = corpus[random.below(corpus.count)]
    let other = corpus[random.below(corpus.count)].1
    var mutant = original
    var applied: [String] = []
    for _ in 0..<(1 + random.below(4)) {
        let mutation = Mutation.allCases[random.below(Mutation.allCases.count)]
        mutation.apply(&mutant, other: other, &random)
        applied.append("\(mutation)")
    }
    if mutant.count > maxBytes { mutant.removeSubrange(maxBytes...) }
    // Written before it is read: if the process dies, this is the input that killed it.
    FileManager.default.createFile(atPath: current, contents: Data(mutant))
    FileManager.default.createFile(
        atPath: current + ".txt",
        contents: Data("seed \(options.seed), iteration \(iterations): \(name) with \(applied.joined(separator: ", "))\n".utf8))
    // Named as the corpus file is: a reader that looks at the name is exercised too.
    let path = options.out + "/" + URL(fileURLWithPath: name).lastPathComponent
    if let problem = try Invariants.check(mutant, path: path, checker: checker, scratch: options.out) {
        FileManager.default.createFile(atPath: options.out + "/failure", contents: Data(mutant))
        print("iap-audit-fuzz: invariant broken at iteration \(iterations) (\(name) with \(applied.joined(separator: ", "))): \(problem)")
        print("iap-audit-fuzz: the input is \(options.out)/failure; replay it with --replay \(options.out)/failure")
        exit(1)
    }
    byFormat[name.split(separator: ".").last.map(String.init) ?? "", default: 0] += 1
}
try? FileManager.default.removeItem(atPath: current)
try? FileManager.default.removeItem(atPath: current + ".txt")
let formats = byFormat.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
print("iap-audit-fuzz: \(iterations) mutants read, no crash, every invariant held (by corpus file type: \(formats))")
