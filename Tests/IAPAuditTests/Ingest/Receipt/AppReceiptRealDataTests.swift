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

/// PKCS#7 app receipts from ../shared/real-data, with values checked against an independent decoding
/// (openssl cms + pyasn1) and, for RevenueCat, against Apple's own verifyReceipt answer. Each test reads the corpus
/// through `TestPaths.realData`, which throws `XCTSkip` (one line naming it) when `../shared` is absent.
final class AppReceiptRealDataTests: XCTestCase {
    func testRevenueCatReceiptMatchesItsVerifyReceiptAnswer() throws {
        let checker = StubReceiptChecker(.invalid("certificate_expired"))
        let receipt = try ReceiptFixtures.read("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt", checker: checker)
        let answerPath = "RevenueCat__purchases-ios/verifyReceiptSample1.txt"
        let answer = try VerifyResponseParser.parse(
            try ReceiptFixtures.record(answerPath), at: ReceiptFixtures.location(answerPath), requestId: nil, receivedAtMs: nil, raw: "")
        let answerInApp = answer.items.filter { $0.sections.contains("in_app") }
        XCTAssertEqual(answerInApp.count, 9)

        XCTAssertEqual(receipt.source, .appReceipt)
        XCTAssertEqual(receipt.status, 0)
        XCTAssertEqual(receipt.receiptType, "ProductionSandbox")
        XCTAssertEqual(receipt.environment, "Sandbox")
        XCTAssertEqual(receipt.environment, answer.environment)
        XCTAssertEqual(receipt.bundleId, "com.revenuecat.sampleapp")
        XCTAssertEqual(receipt.bundleId, answer.bundleId)
        XCTAssertEqual(receipt.signedDateMs, 1_595_439_548_000, "receipt creation 2020-07-22T17:39:08Z")
        XCTAssertEqual(receipt.signature, .invalid("certificate_expired"))
        XCTAssertEqual(checker.pkcs7Checks.count, 1)
        XCTAssertEqual(checker.pkcs7Checks.first?.atMs, 1_595_439_548_000)
        XCTAssertEqual(checker.pkcs7Checks.first?.byteCount, 8425)
        XCTAssertNil(receipt.requestId)
        XCTAssertTrue(receipt.notes.isEmpty)

        XCTAssertEqual(Set(receipt.items.map(\.transactionId)), Set(answerInApp.map(\.transactionId)))
        XCTAssertEqual(receipt.items.count, 9)
        XCTAssertEqual(
            Set(receipt.items.compactMap(\.productId)),
            ["com.revenuecat.monthly_4.99.1_week_intro", "com.revenuecat.annual_39.99.2_week_intro"])
        for expected in answerInApp {
            let item = try XCTUnwrap(receipt.items.first { $0.transactionId == expected.transactionId })
            XCTAssertEqual(item.originalTransactionId, expected.originalTransactionId, expected.transactionId)
            XCTAssertEqual(item.productId, expected.productId, expected.transactionId)
            XCTAssertEqual(item.quantity, expected.quantity, expected.transactionId)
            XCTAssertEqual(item.purchaseDateMs, expected.purchaseDateMs, expected.transactionId)
            XCTAssertEqual(item.originalPurchaseDateMs, expected.originalPurchaseDateMs, expected.transactionId)
            XCTAssertEqual(item.expiresDateMs, expected.expiresDateMs, expected.transactionId)
            XCTAssertEqual(item.webOrderLineItemId, expected.webOrderLineItemId, expected.transactionId)
            XCTAssertEqual(item.isTrialPeriod, expected.isTrialPeriod, expected.transactionId)
            XCTAssertEqual(item.cancellationDateMs, nil)
            XCTAssertEqual(item.isInIntroOfferPeriod, false)
            XCTAssertEqual(item.sections, ["app_receipt"])
            XCTAssertEqual(item.signature, .invalid("certificate_expired"))
        }
        XCTAssertEqual(receipt.items.filter { $0.isTrialPeriod == true }.map(\.transactionId), ["1000000692878476"])
        XCTAssertEqual(Set(receipt.items.compactMap(\.originalTransactionId)), ["1000000692878476"])
    }

    func testRevenueCatRawJSONUsesVerifyReceiptNames() throws {
        let receipt = try ReceiptFixtures.read("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt")
        XCTAssertTrue(
            receipt.rawJSON.hasPrefix(#"{"application_version":"4","bundle_id":"com.revenuecat.sampleapp","in_app":[{"#), receipt.rawJSON)
        let raw = try ReceiptFixtures.raw(receipt)
        XCTAssertEqual(raw["receipt_type"] as? String, "ProductionSandbox")
        XCTAssertEqual(raw["receipt_creation_date"] as? String, "2020-07-22T17:39:08Z")
        XCTAssertEqual(raw["receipt_creation_date_ms"] as? String, "1595439548000")
        XCTAssertEqual(raw["original_application_version"] as? String, "1.0")
        let first = try XCTUnwrap((raw["in_app"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            first as NSDictionary,
            [
                "quantity": "1", "product_id": "com.revenuecat.monthly_4.99.1_week_intro", "transaction_id": "1000000692879214",
                "original_transaction_id": "1000000692878476", "purchase_date": "2020-07-14T19:36:40Z", "purchase_date_ms": "1594755400000",
                "original_purchase_date": "2020-07-14T19:33:27Z", "original_purchase_date_ms": "1594755207000",
                "expires_date": "2020-07-14T19:41:40Z", "expires_date_ms": "1594755700000", "web_order_line_item_id": "1000000054042695",
                "is_trial_period": "false", "is_in_intro_offer_period": "false",
            ] as NSDictionary)
        let again = try ReceiptFixtures.read("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt")
        XCTAssertEqual(again.rawJSON, receipt.rawJSON, "deterministic rendering")
    }

    func testProductionReceipt() throws {
        let receipt = try ReceiptFixtures.read("tikhop__TPInAppReceipt/receipt-production")
        XCTAssertEqual(receipt.receiptType, "Production")
        XCTAssertEqual(receipt.environment, "Production")
        XCTAssertFalse(receipt.isSandbox)
        XCTAssertEqual(receipt.bundleId, "org.getpure.pure-iphone")
        XCTAssertEqual(receipt.signedDateMs, 1_708_709_236_000, "2024-02-23T17:27:16Z")
        XCTAssertEqual(receipt.signature, .verified)
        XCTAssertEqual(receipt.items.map(\.transactionId), ["340001196262039", "340001237736590", "340001264290434", "340001311555626"])
        XCTAssertEqual(
            receipt.items.map(\.productId),
            ["org.getpure.pure.Week", "org.getpure.pure.Month", "org.getpure.pure.Month", "org.getpure.pure.Month"])
        XCTAssertEqual(Set(receipt.items.map(\.originalTransactionId)), ["340001196262039"])
        XCTAssertEqual(
            receipt.items.map(\.webOrderLineItemId), ["340000558053130", "340000558053131", "340000580178733", "340000594256018"])
        let first = receipt.items[0]
        XCTAssertEqual(first.purchaseDateMs, 1_683_674_455_000)
        XCTAssertEqual(first.originalPurchaseDateMs, 1_683_674_457_000)
        XCTAssertEqual(first.expiresDateMs, 1_684_279_255_000)
        XCTAssertEqual(first.quantity, 1)
        XCTAssertEqual(first.isTrialPeriod, false)
        XCTAssertEqual(first.isInIntroOfferPeriod, false)
        let raw = try ReceiptFixtures.raw(receipt)
        let inApp = try XCTUnwrap(raw["in_app"] as? [[String: Any]])
        XCTAssertEqual(
            inApp.map { $0["promotional_offer_id"] as? String },
            [nil, nil, "org.getpure.pure.Month.Offer.3M.PayToGo", "org.getpure.pure.Month.Offer.3M.PayToGo"])
    }

    func testLargeSandboxReceipt() throws {
        let receipt = try ReceiptFixtures.read("tikhop__TPInAppReceipt/receipt-sandbox-legacy")
        XCTAssertEqual(receipt.environment, "Sandbox")
        XCTAssertEqual(receipt.receiptType, "ProductionSandbox")
        XCTAssertEqual(receipt.bundleId, "com.nutcall.alert")
        XCTAssertEqual(receipt.signedDateMs, 1_588_789_729_000, "2020-05-06T18:28:49Z")
        XCTAssertEqual(receipt.items.count, 187, "187 distinct transaction ids, as SOURCES.md says")
        XCTAssertEqual(Set(receipt.items.compactMap(\.originalTransactionId)), ["1000000603177571"])
        let perProduct = Dictionary(grouping: receipt.items, by: { $0.productId ?? "" }).mapValues(\.count)
        XCTAssertEqual(
            perProduct, ["com.nutcallalert.inapp.optimum": 116, "com.nutcallalert.inapp.pro": 39, "com.nutcallalert.inapp.lite": 32],
            "three products, not two as SOURCES.md says")
        XCTAssertEqual(receipt.items.filter { $0.isTrialPeriod == true }.count, 1)
        XCTAssertEqual(receipt.items.filter { $0.cancellationDateMs != nil }.count, 0)
        XCTAssertEqual(receipt.items[0].transactionId, "1000000637840752")
        XCTAssertEqual(receipt.items[0].webOrderLineItemId, "1000000048877195")
    }

    func testXcodeReceipts() throws {
        // BER with indefinite lengths and a constructed OCTET STRING in the envelope.
        let cycle = try ReceiptFixtures.read("tikhop__TPInAppReceipt/receipt-xcode")
        XCTAssertEqual(cycle.receiptType, "Xcode")
        XCTAssertEqual(cycle.environment, "Xcode")
        XCTAssertTrue(cycle.isSandbox)
        XCTAssertEqual(cycle.bundleId, "net.zachariadis.cyclemaps")
        XCTAssertEqual(cycle.signedDateMs, 1_595_439_195_000, "2020-07-22T18:33:15+0100")
        XCTAssertEqual(cycle.items.count, 1)
        let premium = cycle.items[0]
        XCTAssertEqual(premium.transactionId, "0")
        XCTAssertEqual(premium.productId, "CYCLEMAPS_PREMIUM")
        XCTAssertEqual(premium.purchaseDateMs, 1_595_439_194_000)
        XCTAssertEqual(premium.expiresDateMs, 1_626_975_194_000)
        XCTAssertNil(premium.originalTransactionId)
        XCTAssertEqual(premium.isInIntroOfferPeriod, false)
        let raw = try ReceiptFixtures.raw(cycle)
        XCTAssertEqual(raw["expiration_date"] as? String, "4001-01-01T00:00:00+0000")
        XCTAssertNil(raw["expiration_date_ms"], "the Xcode sentinel year 4001 is no instant")

        let pass = try ReceiptFixtures.read("apple__app-store-server-library-swift/xcode-app-receipt-with-transaction")
        XCTAssertEqual(pass.environment, "Xcode")
        XCTAssertEqual(pass.bundleId, "com.example.naturelab.backyardbirds.example")
        XCTAssertEqual(pass.signedDateMs, 1_697_679_940_000)
        XCTAssertEqual(pass.items.map(\.transactionId), ["0"])
        XCTAssertEqual(pass.items[0].productId, "pass.premium")
        XCTAssertEqual(pass.items[0].isInIntroOfferPeriod, true)
        XCTAssertEqual(pass.items[0].purchaseDateMs, 1_697_679_936_000)
        XCTAssertEqual(pass.items[0].expiresDateMs, 1_700_358_336_000)
        XCTAssertEqual(pass.items[0].quantity, 1)

        let empty = try ReceiptFixtures.read("apple__app-store-server-library-swift/xcode-app-receipt-empty")
        XCTAssertEqual(empty.environment, "Xcode")
        XCTAssertEqual(empty.bundleId, "com.example.naturelab.backyardbirds.example")
        XCTAssertEqual(empty.signedDateMs, 1_697_678_334_000)
        XCTAssertEqual(empty.items.count, 0)
        XCTAssertEqual(try ReceiptFixtures.raw(empty)["in_app"] as? [Any] as? NSArray, [] as NSArray)
    }

    func testAppReceiptValidatorReceipts() throws {
        let unified = try ReceiptFixtures.read("IdeasOnCanvas__AppReceiptValidator/grandUnifiedExpiredAppleCert_receipt.b64")
        XCTAssertEqual(unified.environment, "Sandbox")
        XCTAssertEqual(unified.bundleId, "com.mbaasy.ios.demo")
        XCTAssertEqual(unified.signedDateMs, 1_439_452_246_000)
        XCTAssertEqual(
            unified.items.map(\.transactionId),
            [
                "1000000166865231", "1000000166965150", "1000000166965327", "1000000166965895", "1000000166967152", "1000000166967484",
                "1000000166967782",
            ])
        XCTAssertEqual(unified.items.map(\.productId), ["consumable"] + Array(repeating: "monthly", count: 6))
        let consumable = unified.items[0]
        XCTAssertNil(consumable.webOrderLineItemId, "Apple writes 0 for a consumable")
        XCTAssertNil(consumable.expiresDateMs)
        XCTAssertNil(consumable.isInIntroOfferPeriod, "field 1719 did not exist in 2015")
        XCTAssertEqual(consumable.purchaseDateMs, 1_438_979_875_000)
        XCTAssertEqual(unified.items[1].webOrderLineItemId, "1000000030274153")

        let experiments = try ReceiptFixtures.read("IdeasOnCanvas__AppReceiptValidator/purchasing_experiments_sandbox_receipt.b64")
        XCTAssertEqual(experiments.environment, "Sandbox")
        XCTAssertEqual(experiments.bundleId, "com.hannesoid.PurchasingExperiments")
        XCTAssertEqual(experiments.signedDateMs, 1_677_076_215_000)
        XCTAssertEqual(experiments.items.map(\.transactionId), ["2000000284164152", "2000000284164527"])
        XCTAssertEqual(
            experiments.items.map(\.productId),
            ["com.hannesoid.PurchasingExperiments.oneTime", "com.hannesoid.PurchasingExperiments.subscription1"])
        XCTAssertNil(experiments.items[0].expiresDateMs)
        XCTAssertEqual(experiments.items[1].purchaseDateMs, 1_677_076_179_000)
        XCTAssertEqual(experiments.items[1].expiresDateMs, 1_677_076_479_000)
        XCTAssertEqual(experiments.items[1].webOrderLineItemId, "2000000021470597")

        let mindnode = try ReceiptFixtures.read("IdeasOnCanvas__AppReceiptValidator/mindnode_ios_michaelsandbox_receipt1.b64")
        XCTAssertEqual(mindnode.environment, "Sandbox")
        XCTAssertEqual(mindnode.bundleId, "com.mindnode.mindnodetouch")
        XCTAssertEqual(mindnode.signedDateMs, 1_505_122_714_000)
        XCTAssertEqual(mindnode.items.count, 0)
    }

    func testNotAReceiptNamesWhatItFound() throws {
        try TestPaths.requireRealData()
        XCTAssertThrowsError(try ReceiptFixtures.read("IdeasOnCanvas__AppReceiptValidator/not_a_receipt")) { error in
            XCTAssertEqual(
                "\(error)",
                #"not a receipt: found the text "NOT A RECEIPT" (expected base64 or DER of a PKCS#7 app receipt or an iOS 6 transaction receipt)"#
            )
        }
    }

    func testRawDERIsAcceptedAsIs() throws {
        let text = try ReceiptFixtures.data("tikhop__TPInAppReceipt/receipt-production")
        let der = try XCTUnwrap(Data(base64Encoded: text))
        let checker = StubReceiptChecker(.untrustedRoot)
        let receipt = try AppReceiptReader.read(
            der, at: SourceLocation(file: "r.der", line: 1), requestId: "req-1", receivedAtMs: 1_708_709_300_000, checker: checker)
        XCTAssertEqual(receipt.items.count, 4)
        XCTAssertEqual(receipt.requestId, "req-1")
        XCTAssertEqual(receipt.receivedAtMs, 1_708_709_300_000)
        XCTAssertEqual(receipt.signature, .untrustedRoot)
        XCTAssertEqual(Set(receipt.items.map(\.signature)), [.untrustedRoot])
        XCTAssertEqual(checker.pkcs7Checks.first?.byteCount, der.count)
    }

    func testLineWrappedBase64WithCRLF() throws {
        let text = String(decoding: try ReceiptFixtures.data("tikhop__TPInAppReceipt/receipt-production"), as: UTF8.self)
        var wrapped = "\r\n  "
        var rest = Substring(text)
        while !rest.isEmpty {
            wrapped += rest.prefix(76) + "\r\n"
            rest = rest.dropFirst(76)
        }
        let receipt = try AppReceiptReader.read(
            Data(wrapped.utf8), at: SourceLocation(file: "w", line: 1), requestId: nil, receivedAtMs: nil, checker: StubReceiptChecker())
        XCTAssertEqual(receipt.items.count, 4)
    }
}
