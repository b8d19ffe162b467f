import Foundation
import XCTest

extension XCTestCase {
    /// A scratch input folder holding copies of sample-data's `names`, and a scratch output folder, both
    /// removed when the test ends.
    func scratchSample(_ names: [String] = ["client.jsonl", "server.jsonl", "verify.jsonl"]) throws -> (input: String, out: String) {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        addTeardownBlock {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: out)
        }
        for name in names {
            try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data/" + name, toPath: input + "/" + name)
        }
        return (input, out)
    }
}
