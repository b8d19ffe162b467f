import Foundation
import XCTest

/// Where tests find the repository, the shared real data and a scratch folder.
enum TestPaths {
    static var repoRoot: String { PythonReader.repoRoot().path }

    /// `../shared/real-data` beside the checkout (read from there, never copied). On a bare clone (no
    /// `../shared`) it throws `XCTSkip`, so a test that needs it is skipped with one line naming it.
    static var realData: String {
        get throws {
            let path = URL(fileURLWithPath: repoRoot + "/../shared/real-data").standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip(sharedAbsent) }
            return path
        }
    }

    /// A file or folder under `../shared/real-data`; `XCTSkip` when that corpus is absent.
    static func realData(_ relative: String) throws -> String { try realData + "/" + relative }

    /// Skips the calling test on a bare clone: for tests that read the corpus inside an assertion, where
    /// a thrown `XCTSkip` would be recorded as a failure.
    static func requireRealData() throws { _ = try realData }

    /// The one line a test skipped for want of the external corpus says.
    static let sharedAbsent = "needs ../shared/real-data beside the checkout (absent: a bare clone)"

    /// A fresh empty folder under the system temporary directory.
    static func scratch(_ name: String = #function) -> String {
        let path = NSTemporaryDirectory() + "iap-audit-tests/\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ text: String, to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
}

/// Runs the command line in-process, capturing its output and exit status.
struct CLIRun {
    let status: Int32
    let out: String
    let err: String

    init(_ arguments: [String]) {
        var out: [String] = []
        var err: [String] = []
        status = CommandLineInterfaceRunner.main(arguments, out: { out.append($0) }, err: { err.append($0) })
        self.out = out.joined(separator: "\n")
        self.err = err.joined(separator: "\n")
    }
}
