import CXLSXWriter
import Foundation
import IAPAuditModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Renders a `ReportWorkbook` (plain data) into an .xlsx file with libxlsxwriter.
///
/// The `XLSX*.swift` files are the only code that talks to libxlsxwriter (`XLSXMoney.cellValue` the only
/// place an amount becomes a C double).
///
/// Layout of each sheet (`WorkbookLayout`, computed before anything is written): tables one below the
/// other from row 0, one blank row between them; a table with a title gets a bold title row, then its
/// notes (if any) above its bold, bordered, filled header row, its data rows and its footer rows. The
/// sheet's first primary table gets frozen panes below its header, an autofilter over its header and
/// data rows, and its notes and header repeated on every printed page. Every sheet prints landscape, one
/// page wide. Charts are column charts placed to the right of the tables.
public enum XLSXWriter {
    /// Excel's limits.
    static let maxRows = 1_048_576
    static let maxColumns = 16_384
    /// Displayed length used for the column width of `.dateTime` / `.date` cells.
    static let dateTimeDisplayLength = 19
    static let dateDisplayLength = 10
    static let minColumnWidth = 8
    static let maxColumnWidth = 80
    /// Rows reserved per chart when several charts are stacked (a default chart is 288 px
    /// high, about 14.4 default rows).
    static let rowsPerChart = 16
    /// Points per line of text in a row (Excel's default row is 15 points high).
    static let lineHeight = 15.0
    /// A note's font size and the points per line it takes.
    static let noteFontSize = 9
    static let noteLineHeight = 12.0

    /// Writes `workbook` to `path` (overwriting). Throws `XLSXError` (with the libxlsxwriter
    /// error text and the sheet/cell) on failure, e.g. an unwritable path or a full disk.
    ///
    /// What libxlsxwriter prints on stderr meanwhile (`[ERROR] …`) is captured: it becomes the error's
    /// `diagnostics` and never reaches the user raw.
    public static func write(_ workbook: ReportWorkbook, to path: String) throws {
        let capture = StandardErrorCapture()
        do {
            try render(workbook, to: path)
        } catch var error as XLSXError {
            error.diagnostics = capture.stop()
            throw error
        } catch {
            _ = capture.stop()
            throw error
        }
        // Written, yet libxlsxwriter had something to say (not expected): passed on, marked as ours.
        for line in capture.stop() {
            StandardStreams.err("iap-audit: note: libxlsxwriter: \(XLSXError.withoutLevel(line).controlCharactersEscaped)\n")
        }
    }

    private static func render(_ workbook: ReportWorkbook, to path: String) throws {
        // Every C string handed to libxlsxwriter stays alive until after workbook_close.
        let strings = CStringPool()
        defer { strings.freeAll() }

        var options = lxw_workbook_options()
        // Rows go to disk as they are written (tables are written top to bottom): memory stays flat
        // whatever the number of findings. Strings are stored inline (no shared-string table).
        options.constant_memory = 1
        options.tmpdir = nil
        options.use_zip64 = 0

        guard let book = workbook_new_opt(try strings.make(path, path: path), &options) else {
            throw XLSXError(
                operation: "workbook_new_opt", message: "could not create the workbook (out of memory?)",
                path: path)
        }
        // If anything throws before workbook_close, free the workbook without writing a file.
        var closed = false
        defer { if !closed { lxw_workbook_free(book) } }

        // A known creation time makes the same audit the same bytes: never the clock (libxlsxwriter's 0).
        var properties = lxw_doc_properties()
        let createdSeconds = (workbook.createdMs ?? 0) / 1000
        properties.created = time_t(createdSeconds != 0 ? createdSeconds : ReportWorkbook.undatedCreatedMs / 1000)
        workbook_set_properties(book, &properties)
        let formats = try Formats(book: book, strings: strings, path: path)
        let layout = WorkbookLayout(workbook)

        for sheet in workbook.sheets {
            var renderer = try SheetRenderer(
                book: book, sheet: sheet, formats: formats, strings: strings, path: path, layout: layout, footer: workbook.footer)
            try renderer.render()
        }

        errno = 0
        let status = workbook_close(book)
        let systemError = errno
        closed = true
        if status != LXW_NO_ERROR {
            var message = errorText(status)
            if status == LXW_ERROR_CREATING_XLSX_FILE, systemError != 0, let text = strerror(systemError) {
                message += ": " + String(cString: text)
            }
            var error = XLSXError(operation: "workbook_close", message: message, path: path, code: Int(status.rawValue))
            error.systemError = systemError == 0 ? nil : systemError
            throw error
        }
    }

    // MARK: - Helpers shared with the renderer

    static func errorText(_ error: lxw_error) -> String {
        guard let text = lxw_strerror(error) else { return "libxlsxwriter error \(error.rawValue)" }
        return String(cString: text)
    }

    /// "A", "B", …, "Z", "AA", … for a zero-based column index.
    static func columnName(_ column: Int) -> String {
        var n = column + 1
        var letters: [Character] = []
        while n > 0 {
            let remainder = (n - 1) % 26
            letters.append(Character(Unicode.Scalar(UInt8(65 + remainder))))
            n = (n - 1) / 26
        }
        return String(letters.reversed())
    }

    /// A1 reference for zero-based row and column.
    static func cellName(row: Int, column: Int) -> String {
        "\(columnName(column))\(row + 1)"
    }

    /// Excel serial date number (1900 date system, UTC) for milliseconds since 1970.
    static func excelSerial(milliseconds: Int64) -> Double {
        Double(milliseconds) / 86_400_000 + 25569
    }

    /// The displayed length of a text cell: its longest line, in characters (`Character`s; a line ends at
    /// any `Character.isNewline`, "\r\n" being one).
    static func displayLength(of text: String) -> Int {
        if let ascii = asciiDisplayLength(text) { return ascii }
        var longest = 0
        var current = 0
        for character in text {
            if character.isNewline {
                longest = max(longest, current)
                current = 0
            } else {
                current += 1
            }
        }
        return max(longest, current)
    }

    /// `displayLength` of an ASCII text from its bytes (a byte a character; 0x0A–0x0D end a line, 0x0D 0x0A
    /// together); nil for any other text. Every cell is measured: the `Character` walk cost a fifth of a workbook.
    private static func asciiDisplayLength(_ text: String) -> Int? {
        var longest = 0
        return asciiLines(text, endsLine: { $0 >= 0x0A && $0 <= 0x0D }) { longest = max(longest, $0) } ? longest : nil
    }

    /// The lines `text` takes wrapped at `ReportTable.wrapWidth` characters. The column is at least that
    /// many widths of `0` wide and most letters are narrower, which leaves room for breaks between words.
    static func wrappedLines(_ text: String, width: Int = ReportTable.wrapWidth) -> Int {
        if let ascii = asciiWrappedLines(text, width: width) { return ascii }
        return text.split(separator: "\n", omittingEmptySubsequences: false).reduce(0) {
            $0 + max(1, ($1.count + width - 1) / width)
        }
    }

    /// `wrappedLines` of an ASCII text from its bytes (lines split at "\n" alone: "\r\n" is one character of
    /// its line, as a `Character`); nil for any other text.
    private static func asciiWrappedLines(_ text: String, width: Int) -> Int? {
        var lines = 0
        return asciiLines(text, endsLine: { $0 == 0x0A }) { lines += max(1, ($0 + width - 1) / width) } ? lines : nil
    }

    /// Walks an ASCII text's bytes (a byte a character, 0x0D 0x0A one byte: the 0x0D) and gives `line` the length of
    /// each line, which ends at a byte `endsLine` accepts; false, having stopped, at a byte of any other text (≥ 0x80).
    @inline(__always)
    private static func asciiLines(_ text: String, endsLine: (UInt8) -> Bool, _ line: (Int) -> Void) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var current = 0
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                if byte >= 0x80 { return false }
                if byte == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A { i += 1 }
                if endsLine(byte) {
                    line(current)
                    current = 0
                } else {
                    current += 1
                }
                i += 1
            }
            line(current)
            return true
        }
    }

    /// The displayed length of a number in Excel's General format (approximately).
    static func displayLength(of number: Double) -> Int {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number)).count
        }
        return String(number).count
    }

    static func columnWidth(forDisplayLength length: Int) -> Double {
        Double(min(max(length + 2, minColumnWidth), maxColumnWidth))
    }

    /// libxlsxwriter reads a chart title / series name starting with `=` as a cell reference
    /// formula; keep such text literal by prefixing a space.
    static func literalChartText(_ text: String) -> String {
        text.hasPrefix("=") ? " " + text : text
    }
}

extension XLSXWriter {
    /// Longest text a cell holds (Excel's limit, counted in characters as libxlsxwriter does).
    static let maxCellCharacters = 32_767

    static func fittingExcel(_ text: String) -> String {
        // No more scalars than bytes: most texts need no count.
        guard text.utf8.count > maxCellCharacters else { return text }
        let count = text.unicodeScalars.count
        guard count > maxCellCharacters else { return text }
        let note = " … [cut: \(count) characters in all; the full text is in audit.sqlite]"
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(maxCellCharacters - note.unicodeScalars.count))) + note
    }
}
