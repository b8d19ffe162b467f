import Foundation

/// The built `iap-audit` binary (beside the test bundle; `swift build --build-tests` makes it), run as a child
/// process: what a scheduler sees, exit status included.
enum BuiltBinary {
    static var path: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iap-audit").path
    }

    /// Starts the binary with `arguments` (its output thrown away) and kills it (SIGKILL) `seconds` later.
    /// Returns whether it had ended by itself first.
    @discardableResult
    static func kill(_ arguments: [String], after seconds: Double) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(useconds_t(seconds * 1_000_000))
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .exit
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "no iap-audit binary at \(BuiltBinary.path): build with `swift build --build-tests` (scripts/test.sh does)"
        }
    }

    /// Runs `executable` (default: the binary) with `arguments` in `directory`, its output captured through files.
    /// - Parameter environment: variables set for it besides the tests' own.
    static func run(
        _ arguments: [String], executable: String = path, in directory: String? = nil, environment: [String: String] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing() }
        let scratch = TestPaths.scratch("binary")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let (outPath, errPath) = (scratch + "/stdout", scratch + "/stderr")
        for file in [outPath, errPath] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let read = { String(decoding: FileManager.default.contents(atPath: $0) ?? Data(), as: UTF8.self) }
        return (process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus, read(outPath), read(errPath))
    }
}
