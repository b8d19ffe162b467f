import XCTest

@testable import IAPAuditModel

/// JWS `storefront` (alpha-3) → the reports' country code (alpha-2), for all 175 App Store storefronts.
final class StorefrontTests: XCTestCase {
    func testKnownStorefronts() {
        let cases = [
            ("USA", "US"), ("GBR", "GB"), ("CHE", "CH"), ("JPN", "JP"), ("KOR", "KR"), ("DEU", "DE"), ("CHN", "CN"), ("HKG", "HK"),
            ("MAC", "MO"), ("TWN", "TW"), ("XKS", "XK"), ("COD", "CD"), ("COG", "CG"), ("CIV", "CI"), ("MKD", "MK"), ("TUR", "TR"),
        ]
        for (alpha3, alpha2) in cases {
            XCTAssertEqual(Storefront.countryCode(of: alpha3), alpha2, alpha3)
            XCTAssertEqual(Storefront.storefront(countryCode: alpha2), alpha3, alpha2)
        }
        XCTAssertEqual(Storefront.name(of: "CHE"), "Switzerland")
        for notAStorefront in ["usa", "US", "PRK", "CUB", "IRN", "SYR", "ATA", "", "USAA"] {
            XCTAssertNil(Storefront.countryCode(of: notAStorefront), notAStorefront)
        }
    }

    func testTheTableIsCompleteAndOneToOne() {
        XCTAssertEqual(Storefront.all.count, 175)
        XCTAssertEqual(Storefront.countryCodeByStorefront.count, 175, "no storefront twice")
        XCTAssertEqual(Storefront.storefrontByCountryCode.count, 175, "no country code twice: one-to-one")
        let upper = { (s: String, n: Int) in s.utf8.count == n && s.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } }
        for (alpha3, alpha2, name) in Storefront.all {
            XCTAssertTrue(upper(alpha3, 3), alpha3)
            XCTAssertTrue(upper(alpha2, 2), alpha2)
            XCTAssertFalse(name.isEmpty, alpha3)
            XCTAssertEqual(Storefront.countryCode(of: Storefront.storefront(countryCode: alpha2)!), alpha2)
        }
        XCTAssertEqual(Storefront.all.map(\.alpha3), Storefront.all.map(\.alpha3).sorted(), "sorted by alpha-3")
    }

    /// Every country code seen in the public sample reports (Sales, Subscription, Financial), copied here: a storefront's.
    func testTheSampleReportsCountryCodesAreStorefronts() {
        let seen = [
            "AE", "AM", "AR", "AU", "AZ", "BY", "CH", "DE", "ES", "FI", "FR", "GB", "IL", "IN", "KE", "KW", "KZ", "LU", "MX", "NG", "NZ",
            "PH",
            "RU", "SA", "SE", "TH", "UA", "US", "UZ", "ZA",
        ]
        XCTAssertEqual(seen.filter { Storefront.storefront(countryCode: $0) == nil }, [])
    }
}
