import Foundation

/// Runs a small Python script (e.g. one using openpyxl to read back a generated .xlsx) and
/// returns the JSON it prints on standard output, parsed with `JSONSerialization`.
///
/// Python is located as: the environment variable `IAP_AUDIT_PYTHON` if set, else
/// `<repo root>/.venv/bin/python` (create it with
/// `python3 -m venv .venv && .venv/bin/pip install openpyxl`).
enum PythonReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The package root: three levels up from this file (`Tests/IAPAuditTests/PythonReader.swift`).
    static func repoRoot(filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // IAPAuditTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repo root
    }

    /// The Python interpreter to use, or a `Failure` explaining how to provide one.
    static func pythonPath() throws -> String {
        let fileManager = FileManager.default
        if let fromEnvironment = ProcessInfo.processInfo.environment["IAP_AUDIT_PYTHON"],
            !fromEnvironment.isEmpty
        {
            guard fileManager.isExecutableFile(atPath: fromEnvironment) else {
                throw Failure(
                    description:
                        "IAP_AUDIT_PYTHON is set to '\(fromEnvironment)', which is not an executable file")
            }
            return fromEnvironment
        }
        let venvPython = repoRoot().appendingPathComponent(".venv/bin/python").path
        guard fileManager.isExecutableFile(atPath: venvPython) else {
            throw Failure(
                description: """
                    No Python found to read back test output: IAP_AUDIT_PYTHON is not set and \
                    '\(venvPython)' does not exist. Create it with: python3 -m venv \
                    \(repoRoot().appendingPathComponent(".venv").path) && \
                    \(venvPython.replacingOccurrences(of: "/python", with: "/pip")) install openpyxl
                    """)
        }
        return venvPython
    }

    /// What the scripts reading an .xlsx back share: the imports, and `plain(v)`, a cell value as JSON can
    /// hold it (a date as `{"datetime": ISO 8601}`).
    static let xlsxPrelude = #"""
        import sys, json, datetime, re, zipfile
        import openpyxl

        def plain(v):
            if isinstance(v, (datetime.datetime, datetime.date)):
                return {"datetime": v.isoformat()}
            return v

        """#

    /// Runs `python -c script args...`; the script must print one JSON document on stdout.
    /// Throws `Failure` (with the script's stderr) if Python is missing, exits non-zero, or
    /// prints something that is not JSON.
    static func run(_ script: String, args: [String]) throws -> Any {
        let python = try pythonPath()

        // stdout/stderr go to temporary files, so a chatty script cannot fill a pipe and block.
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("python-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + args
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? outHandle.close()
            try? errHandle.close()
            throw Failure(description: "could not start \(python): \(error)")
        }
        process.waitUntilExit()
        try? outHandle.close()
        try? errHandle.close()

        let output = (try? Data(contentsOf: outURL)) ?? Data()
        let errors = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure(
                description: "python script failed (status \(process.terminationStatus)):\n\(errors)")
        }
        do {
            return try JSONSerialization.jsonObject(with: output, options: [.fragmentsAllowed])
        } catch {
            throw Failure(
                description: """
                    python script did not print JSON (\(error)).
                    stdout: \(String(decoding: output, as: UTF8.self))
                    stderr: \(errors)
                    """)
        }
    }
}
