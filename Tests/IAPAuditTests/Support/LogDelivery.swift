import Foundation
import XCTest

/// What the night-by-night tests do to an exports folder: append a day's lines, run a shell command (logrotate, touch).
extension XCTestCase {
    /// Appends `lines` to the file at `path` (made when missing), each ended by a line feed.
    func append(_ lines: [String], _ path: String) throws {
        guard !lines.isEmpty else { return }
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
        try handle.close()
    }

    /// Runs `script` with /bin/sh, asserting it exits 0.
    func shell(_ script: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, script)
    }
}
