import Foundation
import XCTest

@testable import IAPAuditIngest
@testable import IAPAuditModel

/// `--prices FILE`: the reader (every bad line rejected with file:line and the reason) and the lookup
/// (the latest valid_from at or before the instant), with exact milliunits.
final class PriceListTests: XCTestCase {
    private func read(_ text: String) throws -> PriceListReader.Result {
        try PriceListReader.read(InputFile(path: "prices.csv", data: Data(text.utf8), sha256: ""))
    }

    private func date(_ text: String) -> CalendarDate { CalendarDate(iso: text)! }

    func testPricesAreReadExactlyAndLookedUpByDate() throws {
        let result = try read(
            """
            Product_ID, Storefront_or_Currency ,price,valid_from,note
            com.example.gems60,USD,0.99,2025-01-01,launch
            com.example.gems60,USD,1.29,2025-07-01,raised
            com.example.gems60,JPY,160,2025-01-01,
            com.example.gems60,KWD,0.295,2025-01-01,
            com.example.pro.monthly,DEU,4.99,2025-06-01,

            com.example.pro.monthly,CHE,"5.00",2025-06-01,quoted
            com.example.pro.monthly,USD,0,2025-06-01,free
            """)
        XCTAssertEqual(result.rejections, [])
        XCTAssertEqual(result.linesRead, 7)
        let list = result.priceList
        XCTAssertEqual(list.count, 7)
        let gems = "com.example.gems60"
        XCTAssertNil(list.price(of: gems, in: .currency("USD"), on: date("2024-12-31")))
        XCTAssertEqual(list.price(of: gems, in: .currency("USD"), on: date("2025-01-01"))?.milliunits, 990)
        XCTAssertEqual(list.price(of: gems, in: .currency("USD"), on: date("2025-06-30"))?.milliunits, 990)
        XCTAssertEqual(list.price(of: gems, in: .currency("USD"), on: date("2025-07-01"))?.milliunits, 1290)
        XCTAssertEqual(
            list.price(of: gems, in: .currency("USD"), on: date("2030-01-01"))?.location, SourceLocation(file: "prices.csv", line: 3))
        XCTAssertEqual(
            list.price(of: gems, in: .currency("JPY"), on: date("2025-03-01"))?.money(), Money(milliunits: 160_000, currency: "JPY"))
        XCTAssertEqual(list.price(of: gems, in: .currency("KWD"), on: date("2025-03-01"))?.milliunits, 295)
        XCTAssertNil(list.price(of: gems, in: .currency("EUR"), on: date("2025-03-01")))
        XCTAssertNil(list.price(of: "com.example.other", in: .currency("USD"), on: date("2025-03-01")))
        let germany = try XCTUnwrap(list.price(of: "com.example.pro.monthly", in: .storefront("DEU"), on: date("2025-06-01")))
        XCTAssertEqual(germany.milliunits, 4990)
        XCTAssertNil(germany.money(), "a storefront's currency is not in the price list")
        XCTAssertEqual(germany.money(storefrontCurrency: "EUR"), Money(milliunits: 4990, currency: "EUR"))
        XCTAssertEqual(list.price(of: "com.example.pro.monthly", in: .storefront("CHE"), on: date("2025-06-01"))?.milliunits, 5000)
        XCTAssertEqual(list.price(of: "com.example.pro.monthly", in: .currency("USD"), on: date("2025-06-01"))?.milliunits, 0)
        XCTAssertEqual(list.entries.map(\.location.line), [4, 5, 2, 3, 8, 6, 9], "by product, scope (storefronts first), valid_from")
    }

    /// valid_from begins at midnight in the lookup's time zone: 2025-07-01 00:00 in Los Angeles is 07:00 UTC.
    func testLookupAtAnInstantUsesTheTimeZone() throws {
        let list = try read("product_id,storefront_or_currency,price,valid_from\np,USD,0.99,2025-01-01\np,USD,1.29,2025-07-01\n").priceList
        let pacific = try PeriodTimeZone(parsing: "America/Los_Angeles")
        let instant = Timestamp.parseMs("2025-07-01T03:00:00Z")!
        XCTAssertEqual(list.price(of: "p", in: .currency("USD"), atMs: instant)?.milliunits, 1290)
        XCTAssertEqual(list.price(of: "p", in: .currency("USD"), atMs: instant, timeZone: pacific)?.milliunits, 990)
        XCTAssertEqual(list.price(of: "p", in: .currency("USD"), atMs: instant + 4 * 3_600_000, timeZone: pacific)?.milliunits, 1290)
    }

    /// Every bad line: rejected with file:line and a reason, the good lines kept.
    func testEveryBadLineIsRejectedWithItsReason() throws {
        let result = try read(
            """
            product_id,storefront_or_currency,price,valid_from
            com.example.gems60,USD,0.99,2025-01-01
            com.example.gems60,USD,1.99,2025-01-01
            com.example.gems60,US,0.99,2025-01-01
            com.example.gems60,usd,0.99,2025-01-01
            com.example.gems60,EURO,0.99,2025-01-01
            com.example.gems60,USD,"1,99",2025-01-01
            com.example.gems60,USD,0.999,2025-02-01
            com.example.gems60,JPY,160.5,2025-02-01
            com.example.gems60,USD,-0.99,2025-02-01
            com.example.gems60,USD,1e2,2025-02-01
            com.example.gems60,USD,0.99,01/02/2025
            com.example.gems60,USD,0.99,2025-02-30
            ,USD,0.99,2025-02-01
            com.example.gems60 ,USD,0.99,2025-02-01
            com.example.gems60,,0.99,2025-02-01
            com.example.gems60,USD,,2025-02-01
            com.example.gems60,USD,0.99,
            com.example.gems60,USD,0.99
            com.example.gems60,USD,"0.99,2025-02-01
            com.example.gems60,USD,$0.99,2025-02-01
            """)
        let expected = [
            "prices.csv:3: product 'com.example.gems60' already has a price in USD valid from 2025-01-01 (line 2)",
            "prices.csv:4: field 'storefront_or_currency': 'US' is an alpha-2 country code: write its storefront, USA, or a currency code",
            "prices.csv:5: field 'storefront_or_currency': 'usd' must be upper case: USD",
            "prices.csv:6: field 'storefront_or_currency': 'EURO' is neither an App Store storefront (ISO 3166-1 alpha-3, as USA) nor an ISO 4217 currency code (as USD)",
            "prices.csv:7: field 'price': not a decimal amount: '1,99'",
            "prices.csv:8: field 'price': '0.999' has more decimals than USD has (2)",
            "prices.csv:9: field 'price': '160.5' has more decimals than JPY has (0)",
            "prices.csv:10: field 'price': '-0.99' is negative (a price is 0 or more)",
            "prices.csv:11: field 'price': not a decimal amount: '1e2'",
            "prices.csv:12: field 'valid_from': '01/02/2025' is not a date YYYY-MM-DD",
            "prices.csv:13: field 'valid_from': '2025-02-30' is not a date YYYY-MM-DD",
            "prices.csv:14: missing required field 'product_id'",
            "prices.csv:15: field 'product_id': \"com.example.gems60 \" has white space at its start or end (ids are exact text: remove it)",
            "prices.csv:16: missing required field 'storefront_or_currency'",
            "prices.csv:17: missing required field 'price'",
            "prices.csv:18: missing required field 'valid_from'",
            "prices.csv:19: expected 4 fields as in the header, found 3",
            "prices.csv:20: unterminated quoted field",
            "prices.csv:21: field 'price': not a decimal amount: '$0.99'",
        ]
        XCTAssertEqual(result.rejections.map { "\($0.location): \($0.reason)" }, expected)
        XCTAssertEqual(result.rejections.first?.rawText, "com.example.gems60,USD,1.99,2025-01-01")
        XCTAssertEqual(result.linesRead, 20)
        XCTAssertEqual(result.priceList.count, 1)
        XCTAssertEqual(result.priceList.entries.first?.milliunits, 990)
    }

    func testAFileThatIsNotAPriceListIsRefusedWhole() {
        let cases = [
            ("product_id,currency,price,valid_from\np,USD,1,2025-01-01\n", "line 1 has no column 'storefront_or_currency'"),
            ("\n\n", "the file is empty"),
            ("ts,user_id,transaction_id,state\n", "line 1 has no column 'product_id'"),
        ]
        for (text, why) in cases {
            XCTAssertThrowsError(try read(text)) {
                XCTAssertEqual(
                    "\($0)",
                    "prices.csv: error: cannot read input: not a price list: \(why) "
                        + "(expected the header product_id,storefront_or_currency,price,valid_from)")
            }
        }
        XCTAssertThrowsError(try PriceListReader.read(path: "/nonexistent/prices.csv")) {
            XCTAssertTrue("\($0)".hasPrefix("/nonexistent/prices.csv: error: cannot read input: "), "\($0)")
        }
    }

    /// A line that is not UTF-8 (a Latin-1 é) is rejected, not read with U+FFFD in its product id.
    func testInvalidUTF8IsRejected() throws {
        var data = Data("product_id,storefront_or_currency,price,valid_from\ncaf".utf8)
        data.append(0xE9)
        data.append(contentsOf: Data(",USD,0.99,2025-01-01\n".utf8))
        let result = try PriceListReader.read(InputFile(path: "prices.csv", data: data, sha256: ""))
        XCTAssertEqual(result.rejections.map { "\($0.location): \($0.reason)" }, ["prices.csv:2: invalid UTF-8 at column 4"])
    }

    /// The four codes that are both a storefront and an ISO 4217 code read as storefronts.
    func testStorefrontsWinOverCurrencyCodes() {
        for code in ["BTN", "CHE", "MKD", "SLE"] {
            XCTAssertTrue(CurrencyCode.isISO4217(code), code)
            XCTAssertEqual(PriceScope(code), .storefront(code))
        }
        XCTAssertEqual(PriceScope("CHF"), .currency("CHF"))
        XCTAssertEqual(PriceScope("USA"), .storefront("USA"))
        XCTAssertNil(PriceScope("XXX"))
        XCTAssertNil(PriceScope("usd"))
        XCTAssertEqual(CurrencyCode.iso4217.count, 170)
        XCTAssertTrue(CurrencyCode.isISO4217("JPY"))
        XCTAssertFalse(CurrencyCode.isISO4217("XAU"), "gold is not a currency a price is in")
    }
}
