import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// A folder holding exactly one iap-audit config at its top level, run without `--config`, is audited
/// with it and says so; two or more are none, with a warning naming them.
final class ConfigInInputFolderTests: XCTestCase {
    static let config = #"{"products": {"com.example.premium": "non_consumable"}}"#

    /// A non-consumable granted again to its owner: `regranted` with the config's product types, a
    /// consumable's `duplicate_credit` without them.
    func inputFolder() throws -> String {
        let dir = TestPaths.scratch()
        let cases = FixtureCaseTests.casesFolder + "/regranted-non-consumable/"
        for name in ["server.jsonl", "verify.jsonl"] { try FileManager.default.copyItem(atPath: cases + name, toPath: dir + "/" + name) }
        return dir
    }

    func run(_ arguments: [String], out: String) throws -> (run: CLIRun, parameters: [String: String], kinds: [String]) {
        let run = CLIRun(["run"] + arguments + ["--out", out, "--as-of", "2026-10-10T00:00:00Z"])
        XCTAssertEqual(run.status, 0, run.err)
        let result =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps({"parameters": dict(db.execute("SELECT name, value FROM run_parameter").fetchall()),
                                  "kinds": [k for (k,) in db.execute("SELECT kind FROM finding ORDER BY kind")],
                                  "notes": dict(db.execute("SELECT path, note FROM source_file").fetchall())}))
                """, args: [out + "/audit.sqlite"]) as! [String: Any]
        return (run, result["parameters"] as! [String: String], result["kinds"] as! [String])
    }

    func testTheOnlyConfigInTheFolderIsUsedAndSaidSo() throws {
        let dir = try inputFolder()
        TestPaths.write(Self.config, to: dir + "/config.json")
        let (run, parameters, kinds) = try run([dir], out: TestPaths.scratch())
        XCTAssertTrue(run.err.contains("iap-audit: using \(dir)/config.json as --config (found in the input folder)"), run.err)
        XCTAssertFalse(run.err.contains("no products, bundle_ids or sandbox_allowlist configured"), run.err)
        XCTAssertEqual(parameters["config_source"], "\(dir)/config.json (found in the input folder)")
        XCTAssertTrue(parameters["config"]?.contains(#""com.example.premium":"non_consumable""#) ?? false, "\(parameters)")
        XCTAssertEqual(kinds, ["regranted"])
        let listed = CLIRun(["run", dir, "--out", TestPaths.scratch(), "--json"])
        XCTAssertTrue(listed.out.contains(#""note":"iap-audit configuration (used as --config; not evidence)""#), listed.out)
    }

    /// A symbolic link to the config is the config (a folder of links to an export's files was audited without it).
    func testALinkToTheConfigIsUsed() throws {
        let dir = try inputFolder()
        let real = TestPaths.scratch() + "/real-config.json"
        TestPaths.write(Self.config, to: real)
        try FileManager.default.createSymbolicLink(atPath: dir + "/config.json", withDestinationPath: real)
        let (run, parameters, kinds) = try run([dir], out: TestPaths.scratch())
        XCTAssertTrue(run.err.contains("iap-audit: using \(dir)/config.json as --config (found in the input folder)"), run.err)
        XCTAssertEqual(parameters["config_source"], "\(dir)/config.json (found in the input folder)")
        XCTAssertEqual(kinds, ["regranted"])
    }

    func testSeveralConfigsAreNoneAndNamed() throws {
        let dir = try inputFolder()
        TestPaths.write(Self.config, to: dir + "/config.json")
        TestPaths.write(#"{"bundle_ids": ["com.example.app"]}"#, to: dir + "/prod.json")
        let (run, parameters, kinds) = try run([dir], out: TestPaths.scratch())
        XCTAssertFalse(run.err.contains("as --config (found"), run.err)
        XCTAssertTrue(
            run.err.contains(
                "iap-audit: warning: 2 iap-audit config files in the input folder (\(dir)/config.json, \(dir)/prod.json): none is used"),
            run.err)
        XCTAssertEqual(parameters["config_source"], "none")
        XCTAssertEqual(kinds, ["duplicate_credit"])
    }

    /// One folder named twice (`dir` and `dir/.`, or through a link) holds one config: it is used, not
    /// warned about as two (found by a user: `run same ./same`).
    func testTheSameConfigReachedTwiceIsOne() throws {
        let dir = try inputFolder()
        TestPaths.write(Self.config, to: dir + "/config.json")
        let link = TestPaths.scratch() + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir)
        XCTAssertEqual(ConfigDiscovery.configs(in: [dir, dir + "/.", link, dir + "/"]), [dir + "/config.json"])
        let (run, parameters, kinds) = try run([dir, dir + "/."], out: TestPaths.scratch())
        XCTAssertFalse(run.err.contains("config files in the input folder"), run.err)
        XCTAssertTrue(run.err.contains("iap-audit: using \(dir)/config.json as --config (found in the input folder)"), run.err)
        XCTAssertEqual(parameters["config_source"], "\(dir)/config.json (found in the input folder)")
        XCTAssertEqual(kinds, ["regranted"])
    }

    /// Only the folder's top level is looked at, and `--config` wins over a config in the folder.
    func testSubFoldersAndAGivenConfig() throws {
        let dir = try inputFolder()
        try FileManager.default.createDirectory(atPath: dir + "/old", withIntermediateDirectories: true)
        TestPaths.write(Self.config, to: dir + "/old/config.json")
        let nested = try run([dir], out: TestPaths.scratch())
        XCTAssertEqual(nested.parameters["config_source"], "none")
        XCTAssertEqual(nested.kinds, ["duplicate_credit"])
        let given = TestPaths.scratch() + "/given.json"
        TestPaths.write(#"{"products": {"com.example.premium": "consumable"}}"#, to: given)
        TestPaths.write(Self.config, to: dir + "/config.json")
        let explicit = try run([dir, "--config", given], out: TestPaths.scratch())
        XCTAssertFalse(explicit.run.err.contains("found in the input folder"), explicit.run.err)
        XCTAssertEqual(explicit.parameters["config_source"], "--config \(given)")
        XCTAssertEqual(explicit.kinds, ["duplicate_credit"])
    }
}
