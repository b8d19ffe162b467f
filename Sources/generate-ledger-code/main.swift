// generate-ledger-code: writes the code made from Sources/LedgerDeclarations (records and facts,
// each declared once) into the package. Run from the package root after changing a declaration:
//
//   swift run generate-ledger-code           writes every generated file that changed
//   swift run generate-ledger-code --check   exits 1, naming the stale files, when any is out of date
import Foundation
import LedgerCodeGenerator

let check = CommandLine.arguments.dropFirst().contains("--check")
var stale: [String] = []
for file in LedgerCode.files() {
    let current = try? String(contentsOfFile: file.path, encoding: .utf8)
    guard current != file.contents else { continue }
    stale.append(file.path)
    if !check {
        let folder = (file.path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try file.contents.write(toFile: file.path, atomically: true, encoding: .utf8)
    }
}
if check && !stale.isEmpty {
    FileHandle.standardError.write(
        Data("generate-ledger-code: stale (run swift run generate-ledger-code): \(stale.joined(separator: ", "))\n".utf8))
    exit(1)
}
for path in stale { print("wrote \(path)") }
