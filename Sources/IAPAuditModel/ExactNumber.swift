/// The whole numbers a record may hold: at most 2^53 (9,007,199,254,740,992) in magnitude, the largest a workbook cell
/// (an IEEE 754 double) holds exactly. A reader refuses a value beyond it, a rejected line naming the field: stored, it
/// stopped the workbook of every later run (issue 27: a `latency_ms` or verifyReceipt `status` of 2^53 + 1).
package enum ExactNumber {
    package static let limit: Int64 = 1 << 53

    /// Whether `value` is within ±2^53.
    package static func holds(_ value: Int64) -> Bool { value >= -limit && value <= limit }

    /// Why `value` is refused, after the field's name.
    package static func outOfRange(_ value: Int64) -> String {
        "\(value) is out of range (at most 2^53 = 9007199254740992 either way: the largest number a workbook cell holds exactly)"
    }
}
