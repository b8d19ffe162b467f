// iap-audit-json-probe: how fast do iap-audit's own JSON Lines readers go? (single thread, beside
// bench/json_probe.cpp's simdjson figures)
//
//   swift build -c release --product iap-audit-json-probe
//   .build/release/iap-audit-json-probe FILE [--repeat 3]
//
// Maps FILE and makes two passes, --repeat times each, alternately:
//   tape     LineTape over each line: full RFC 8259 validation (duplicate keys, UTF-8, escapes),
//            value positions recorded — what simdjson's DOM pass does;
//   records  the same plus the verifyReceipt fast reader turning each wrapped response into rows
//            (every field the product stores) — more than simdjson's On-Demand pass extracts.
// Prints one JSON object: per pass, of the repetition with the median time, the parse seconds (min
// and max over the repetitions), MB/s (MB = 10^6 bytes), lines, lines the fast path gave up on, and
// for records the responses and purchases read.
import Foundation
import IAPAuditIngest
import IAPAuditModel

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: iap-audit-json-probe FILE [--repeat 3]\n".utf8))
    exit(64)
}
let path = arguments[1]
var repeatCount = 3
if let i = arguments.firstIndex(of: "--repeat"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 { repeatCount = n }
let fd = open(path, O_RDONLY)
guard fd >= 0 else {
    FileHandle.standardError.write(Data("iap-audit-json-probe: cannot open \(path)\n".utf8))
    exit(1)
}
var info = stat()
fstat(fd, &info)
let size = Int(info.st_size)
guard size > 0, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { exit(1) }
let bytes = UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size)

var tapes: [JSONLinesProbe.Pass] = []
var records: [JSONLinesProbe.Pass] = []
for _ in 0..<repeatCount {
    tapes.append(JSONLinesProbe.tape(bytes))
    records.append(JSONLinesProbe.verifyRecords(bytes))
}

func describe(_ passes: [JSONLinesProbe.Pass], extra: Bool) -> String {
    let sorted = passes.sorted { $0.parseSeconds < $1.parseSeconds }
    let median = sorted[sorted.count / 2]
    var fields = [
        "\"parse_s\":\(median.parseSeconds)", "\"parse_s_min\":\(sorted.first!.parseSeconds)",
        "\"parse_s_max\":\(sorted.last!.parseSeconds)", "\"mb_per_s\":\(Double(size) / 1e6 / median.parseSeconds)",
        "\"lines\":\(median.lines)", "\"failed_lines\":\(median.failedLines)",
    ]
    if extra { fields += ["\"records\":\(median.records)", "\"in_app_items\":\(median.items)"] }
    return "{" + fields.joined(separator: ",") + "}"
}
print(
    "{\"file\":\"\(path)\",\"bytes\":\(size),\"repeat\":\(repeatCount),\"tape\":\(describe(tapes, extra: false)),"
        + "\"records\":\(describe(records, extra: true))}")
