import CXLSXWriter
import IAPAuditModel

// What every sheet of one workbook shares: C strings that must outlive `workbook_close`, and
// the cell formats.

// MARK: - C string lifetime

/// Owns `strdup`ed copies of every string passed to libxlsxwriter; freed after `workbook_close`.
final class CStringPool {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func make(_ string: String, path: String) throws -> UnsafeMutablePointer<CChar> {
        guard let pointer = strdup(string) else {
            throw XLSXError(operation: "strdup", message: "out of memory", path: path)
        }
        pointers.append(pointer)
        return pointer
    }

    func freeAll() {
        for pointer in pointers { free(pointer) }
        pointers.removeAll()
    }
}

// MARK: - Formats

struct Formats {
    let title: UnsafeMutablePointer<lxw_format>
    let header: UnsafeMutablePointer<lxw_format>
    let dateTime: UnsafeMutablePointer<lxw_format>
    let date: UnsafeMutablePointer<lxw_format>
    /// A sentence wrapped in its cell, at the top; and the other cells of its row, at the top too.
    let wrapped: UnsafeMutablePointer<lxw_format>
    let top: UnsafeMutablePointer<lxw_format>
    /// The header of a column of numbers: on the right, above them.
    let headerRight: UnsafeMutablePointer<lxw_format>
    /// The header of a column of text right of a column of numbers: a little away from them.
    let headerIndented: UnsafeMutablePointer<lxw_format>
    /// Every other format, made on first use.
    let styles: FormatCache

    init(book: UnsafeMutablePointer<lxw_workbook>, strings: CStringPool, path: String) throws {
        styles = FormatCache(book: book, strings: strings, path: path)
        func add() throws -> UnsafeMutablePointer<lxw_format> {
            guard let format = workbook_add_format(book) else {
                throw XLSXError(
                    operation: "workbook_add_format", message: "could not create a format (out of memory?)",
                    path: path)
            }
            return format
        }
        title = try add()
        format_set_bold(title)
        format_set_font_size(title, 12)

        /// A header cell: bold, filled, a line below.
        func addHeader() throws -> UnsafeMutablePointer<lxw_format> {
            let format = try add()
            format_set_bold(format)
            format_set_bottom(format, UInt8(LXW_BORDER_THIN.rawValue))
            format_set_pattern(format, UInt8(LXW_PATTERN_SOLID.rawValue))
            format_set_bg_color(format, 0xD9E1F2)
            return format
        }
        header = try addHeader()

        dateTime = try add()
        format_set_num_format(dateTime, try strings.make("yyyy-mm-dd hh:mm:ss", path: path))

        date = try add()
        format_set_num_format(date, try strings.make("yyyy-mm-dd", path: path))

        wrapped = try add()
        format_set_text_wrap(wrapped)
        format_set_align(wrapped, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue))

        top = try add()
        format_set_align(top, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue))

        headerRight = try addHeader()
        format_set_align(headerRight, UInt8(LXW_ALIGN_RIGHT.rawValue))

        headerIndented = try addHeader()
        format_set_indent(headerIndented, 1)
    }
}

/// A cell's look, beyond its value.
struct CellStyle: Hashable {
    var numberFormat: String?
    var bold = false
    var italic = false
    var wrap = false
    var alignTop = false
    /// A thin line above (a totals row).
    var topBorder = false
    /// Points; nil: the default (11).
    var fontSize: Int?
    /// Characters of room on the left (text right of a column of numbers, which sit on the right).
    var indent = 0
}

/// The formats of one workbook by style, each made once, on first use (so the same workbook makes them in
/// the same order: the same bytes).
final class FormatCache {
    private let book: UnsafeMutablePointer<lxw_workbook>
    private let strings: CStringPool
    private let path: String
    private var formats: [CellStyle: UnsafeMutablePointer<lxw_format>] = [:]

    init(book: UnsafeMutablePointer<lxw_workbook>, strings: CStringPool, path: String) {
        (self.book, self.strings, self.path) = (book, strings, path)
    }

    /// The format of `style`; nil for the default look (no format).
    func format(_ style: CellStyle) throws -> UnsafeMutablePointer<lxw_format>? {
        if style == CellStyle() { return nil }
        if let format = formats[style] { return format }
        guard let format = workbook_add_format(book) else {
            throw XLSXError(operation: "workbook_add_format", message: "could not create a format (out of memory?)", path: path)
        }
        if let numberFormat = style.numberFormat { format_set_num_format(format, try strings.make(numberFormat, path: path)) }
        if style.bold { format_set_bold(format) }
        if style.italic { format_set_italic(format) }
        if style.wrap { format_set_text_wrap(format) }
        if style.alignTop { format_set_align(format, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue)) }
        if style.topBorder { format_set_top(format, UInt8(LXW_BORDER_THIN.rawValue)) }
        if let size = style.fontSize { format_set_font_size(format, Double(size)) }
        if style.indent > 0 { format_set_indent(format, UInt8(style.indent)) }
        formats[style] = format
        return format
    }
}
