import XCTest

@testable import IAPAuditModel

/// Money is integer milliunits read from decimal text exactly (FINANCE.md "Money").
final class MoneyTests: XCTestCase {
    func testDecimalTextIsReadExactly() throws {
        let cases: [(String, Int64)] = [
            ("4.49", 4490), ("-12.17", -12170), (".97", 970), ("179", 179_000), ("+3", 3000), ("0.000", 0), ("0.1", 100),
            ("1.234", 1234), ("1.2340000", 1234), ("-0.005", -5), ("9223372036854775.807", Int64.max),
        ]
        for (text, milliunits) in cases { XCTAssertEqual(try Money.milliunits(text), milliunits, text) }
        for (text, error) in [
            ("1.2345", Money.ParseError.tooManyDecimals("1.2345")), ("1e3", .notADecimal("1e3")), ("1,000.00", .notADecimal("1,000.00")),
            ("", .notADecimal("")), (".", .notADecimal(".")), ("-", .notADecimal("-")), (" 1", .notADecimal(" 1")),
            ("9223372036854775.808", .tooLarge("9223372036854775.808")), ("NaN", .notADecimal("NaN")),
        ] {
            XCTAssertThrowsError(try Money.milliunits(text), text) { XCTAssertEqual($0 as? Money.ParseError, error) }
        }
    }

    func testArithmeticIsCheckedAndProratingRoundsHalfAwayFromZero() {
        let price = Money(milliunits: 4490, currency: "USD")
        XCTAssertEqual(price.times(12), Money(milliunits: 53_880, currency: "USD"))
        XCTAssertNil(Money(milliunits: Int64.max, currency: "USD").times(2))
        XCTAssertNil(price.adding(Money(milliunits: 1, currency: "EUR")), "no sum across currencies")
        XCTAssertEqual(price.share(milliPercent: 50_000).milliunits, 2245)
        XCTAssertEqual(Money(milliunits: 999, currency: "USD").share(milliPercent: 50_000).milliunits, 500, "499.5 rounds away from zero")
        XCTAssertEqual(Money(milliunits: -999, currency: "USD").share(milliPercent: 50_000).milliunits, -500)
        XCTAssertEqual(Money(milliunits: 1000, currency: "USD").share(milliPercent: 33_333).milliunits, 333)
        XCTAssertEqual(Money(milliunits: Int64.max, currency: "USD").share(milliPercent: 100_000).milliunits, Int64.max)
    }

    func testAmountsShowTheCurrencysDecimals() {
        XCTAssertEqual(Money(milliunits: 4490, currency: "USD").description, "USD 4.49")
        XCTAssertEqual(Money(milliunits: 179_000, currency: "JPY").description, "JPY 179")
        XCTAssertEqual(Money(milliunits: -12_170, currency: "EUR").description, "EUR -12.17")
        XCTAssertEqual(Money(milliunits: 125, currency: "USD").description, "USD 0.125", "exact, never rounded for show")
        XCTAssertEqual(Money(milliunits: 1500, currency: "KWD").description, "KWD 1.500")
        XCTAssertEqual(Money(milliunits: 1500, currency: "JPY").description, "JPY 1.5")
    }
}
