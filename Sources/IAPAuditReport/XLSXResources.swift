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

    init(book: UnsafeMutablePointer<lxw_workbook>, strings: CStringPool, path: String) throws {
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

        header = try add()
        format_set_bold(header)
        format_set_bottom(header, UInt8(LXW_BORDER_THIN.rawValue))
        format_set_pattern(header, UInt8(LXW_PATTERN_SOLID.rawValue))
        format_set_bg_color(header, 0xD9E1F2)

        dateTime = try add()
        format_set_num_format(dateTime, try strings.make("yyyy-mm-dd hh:mm:ss", path: path))

        date = try add()
        format_set_num_format(date, try strings.make("yyyy-mm-dd", path: path))

        wrapped = try add()
        format_set_text_wrap(wrapped)
        format_set_align(wrapped, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue))

        top = try add()
        format_set_align(top, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue))
    }
}
