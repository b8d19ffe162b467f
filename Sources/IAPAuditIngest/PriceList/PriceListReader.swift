import Foundation
import IAPAuditModel

/// Reads a price list, `--prices FILE` (FINANCE.md "Money": verifyReceipt answers and receipts carry no
/// price): CSV (RFC 4180, UTF-8) whose first line is the header `product_id,storefront_or_currency,
/// price,valid_from` (names in any order and case; other columns are ignored), then one price a line:
///
/// ```
/// product_id,storefront_or_currency,price,valid_from
/// com.example.gems60,USD,0.99,2025-01-01
/// com.example.pro.monthly,DEU,4.99,2025-06-01
/// ```
///
/// - `product_id`: the App Store product id, exact text.
/// - `storefront_or_currency`: an App Store storefront, ISO 3166-1 alpha-3 as the JWS `storefront`
///   (`DEU`: the price in the currency the App Store sells in there), or an ISO 4217 currency (`USD`).
/// - `price`: the customer price, a decimal in the currency's units, read exactly into milliunits
///   (`Money.milliunits`: no exponent, no thousands separator, at most the currency's decimals).
/// - `valid_from`: `YYYY-MM-DD`, the first day of the price; it holds until the product's next price
///   in the same storefront or currency.
///
/// Every other line is rejected with its `file:line` and the reason; the rest is the price list.
package enum PriceListReader {
    /// The columns a price list must have.
    package static let columns = ["product_id", "storefront_or_currency", "price", "valid_from"]

    /// A price list read, and the lines that could not be.
    package struct Result: Sendable {
        /// The prices of the lines read.
        package var priceList = PriceList()
        /// The rejected lines, in file order: `file:line` and the reason.
        package var rejections: [Rejection] = []
        /// The non-blank lines after the header.
        package var linesRead = 0
        /// The file as an input of the close (kind `price_list`, its SHA-256, lines read, imported, rejected).
        package var file: FileSummary {
            FileSummary(
                path: path, sha256: sha256, bytes: bytes, kind: "price_list", format: "csv", status: "imported", note: "--prices",
                recordsIn: Int64(linesRead), recordsImported: Int64(linesRead - rejections.count), recordsRejected: Int64(rejections.count))
        }
        var path = "", sha256 = "", bytes: Int64 = 0
    }

    /// Reads the price list at `path`.
    /// - Throws: `AuditError.unreadablePath` when the file cannot be read or is not a price list.
    package static func read(path: String) throws -> Result {
        let data: Data
        // Said in words: Foundation's own message for a folder is "NSCocoaErrorDomain error 256" (finance user test).
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AuditError.unreadablePath(path, errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw AuditError.unreadablePath(path, "a folder, not a price list file (give --prices FILE.csv)")
        default:
            throw AuditError.unreadablePath(
                path, "not a regular file (a device or a pipe?), not a price list file (give --prices FILE.csv)")
        }
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AuditError.unreadablePath(path, String(cString: strerror(access(path, R_OK) == 0 ? EIO : errno)))
        }
        return try read(InputFile(path: path, data: data, sha256: SwiftSHA256.hex(data)))
    }

    /// Reads the price list `file`.
    /// - Throws: `AuditError.unreadablePath` when its first non-blank line is not a price list's
    ///   header (a column missing), naming the columns it needs.
    package static func read(_ file: InputFile) throws -> Result {
        let lines = file.lines()
        let expected = "expected the header \(columns.joined(separator: ","))"
        guard let first = lines.first else {
            throw AuditError.unreadablePath(file.path, "not a price list: the file is empty (\(expected))")
        }
        let header = (try? CSVRecords.fields(first.text))?.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? []
        if let missing = columns.first(where: { !header.contains($0) }) {
            throw AuditError.unreadablePath(file.path, "not a price list: line \(first.number) has no column '\(missing)' (\(expected))")
        }
        let invalid = file.invalidUTF8Lines()
        var result = Result()
        (result.path, result.sha256, result.bytes) = (file.path, file.sha256, Int64(file.bytes))
        for line in lines.dropFirst() {
            result.linesRead += 1
            do {
                if let column = invalid[line.number] { throw IngestError.other("invalid UTF-8 at column \(column)") }
                let entry = try self.entry(try CSVRecords.record(header: header, line: line.text), at: file.location(line.number))
                if let listed = result.priceList.add(entry) {
                    throw IngestError.other(
                        "product '\(entry.productId)' already has a price in \(entry.scope) valid from \(entry.validFrom) (line \(listed.location.line))"
                    )
                }
            } catch {
                result.rejections.append(Rejection(location: file.location(line.number), reason: "\(error)", rawText: line.text))
            }
        }
        return result
    }

    /// One line's price.
    /// - Throws: `IngestError` naming the field and what is wrong with it.
    private static func entry(_ row: CSVRow, at location: SourceLocation) throws -> PriceListEntry {
        let productId = try row.requiredId("product_id")
        guard let scopeText = try row.text("storefront_or_currency") else { throw IngestError.missingField("storefront_or_currency") }
        let scope = try self.scope(scopeText)
        guard let priceText = try row.text("price") else { throw IngestError.missingField("price") }
        let milliunits: Int64
        do {
            milliunits = try Money.milliunits(priceText)
        } catch let error as Money.ParseError {
            throw IngestError.badField("price", error.description)
        }
        if milliunits < 0 { throw IngestError.badField("price", "'\(priceText)' is negative (a price is 0 or more)") }
        if case .currency(let code) = scope {
            let digits = CurrencyDigits.minorUnits(code)
            if milliunits % [1000, 100, 10, 1][digits] != 0 {
                throw IngestError.badField("price", "'\(priceText)' has more decimals than \(code) has (\(digits))")
            }
        }
        guard let validFromText = try row.text("valid_from") else { throw IngestError.missingField("valid_from") }
        guard let validFrom = CalendarDate(iso: validFromText) else {
            throw IngestError.badField("valid_from", "'\(validFromText)' is not a date YYYY-MM-DD")
        }
        return PriceListEntry(productId: productId, scope: scope, milliunits: milliunits, validFrom: validFrom, location: location)
    }

    /// Column `storefront_or_currency` read (`PriceScope`).
    /// - Throws: `IngestError.badField` saying what the text is instead (a country code, lower case…).
    private static func scope(_ text: String) throws -> PriceScope {
        if let scope = PriceScope(text) { return scope }
        let name = "storefront_or_currency"
        if let storefront = Storefront.storefront(countryCode: text.uppercased()) {
            throw IngestError.badField(
                name, "'\(text)' is an alpha-2 country code: write its storefront, \(storefront), or a currency code")
        }
        if let scope = PriceScope(text.uppercased()) { throw IngestError.badField(name, "'\(text)' must be upper case: \(scope)") }
        throw IngestError.badField(
            name, "'\(text)' is neither an App Store storefront (ISO 3166-1 alpha-3, as USA) nor an ISO 4217 currency code (as USD)")
    }
}
