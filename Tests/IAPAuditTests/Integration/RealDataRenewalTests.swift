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

/// `pending_renewal_info` of the real verifyReceipt responses lands in table `pending_renewal`.
final class RealDataRenewalTests: XCTestCase {
    func testPendingRenewalInfoIsModelled() throws {
        let out = TestPaths.scratch()
        _ = try AuditPipeline.run(AuditOptions(paths: [try TestPaths.realData], outputDirectory: out))
        let rows = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute(
                    "SELECT f.path, p.original_transaction_id, p.product_id, p.auto_renew_status, p.expiration_intent, "
                    "p.is_in_billing_retry_period FROM pending_renewal p JOIN apple_record r USING (record_id) "
                    "JOIN source_file f ON f.file_id = r.file_id WHERE r.source = 'verify_receipt' ORDER BY f.path").fetchall()))
                """, args: [out + "/audit.sqlite"]) as? [[Any]])
        let byFile = Dictionary(
            rows.map { (URL(fileURLWithPath: $0[0] as! String).lastPathComponent, $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(rows.count, 6)
        let revenueCat = try XCTUnwrap(byFile["verifyReceiptSample1.txt"])
        XCTAssertEqual(revenueCat[1] as? String, "1000000692878476")
        XCTAssertEqual(revenueCat[2] as? String, "com.revenuecat.annual_39.99.2_week_intro")
        XCTAssertEqual(revenueCat[3] as? Int, 1)
        let monza = try XCTUnwrap(byFile["response.json"])
        XCTAssertEqual(monza[3] as? Int, 0, "auto-renew turned off")
        XCTAssertEqual(monza[4] as? Int, 1, "expiration_intent 1: cancelled")
        XCTAssertEqual(monza[5] as? Int, 0)
    }
}
