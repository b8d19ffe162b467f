import Foundation
import IAPAuditModel

/// Recognizes non-JSON content: certificates, PKCS#7 receipts, JWS, App Store Connect reports.
/// Everything that reaches it is skipped, with the reason (receipts and JWS are read before it).
package enum BinaryShape {
    /// A tar archive (ustar, POSIX or GNU): its first header's magic `ustar` at offset 257. Its members'
    /// text sits between 512-byte headers, so it is never read as text (each member's first line
    /// would be lost in a header); a `.tar.gz` is known by this once inflated.
    static func isTarArchive(_ data: Data) -> Bool {
        data.count >= 512 && data.dropFirst(257).prefix(5).elementsEqual("ustar".utf8)
    }

    /// The skip note of a tar archive.
    static let tarNote = "tar archive (extract it first: iap-audit reads the files, not the archive)"

    /// How the skip note of content none of the readers recognizes begins.
    package static let unrecognized = "unrecognized content"

    /// A description of what the content is, for the skip note.
    static func describe(_ data: Data) -> String {
        let head = data.prefix(64)
        if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "zip archive or XLSX workbook (extract or export it as CSV first)" }
        if head.first == 0x30 {
            let pkcs7: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
            if data.prefix(32).range(of: Data(pkcs7)) != nil { return "PKCS#7 signed data that is not an app receipt (not evidence)" }
            return "DER certificate (not evidence)"
        }
        let text = String(decoding: data.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("-----BEGIN CERTIFICATE") || text.hasPrefix("Certificate:") { return "PEM certificate (not evidence)" }
        if text.hasPrefix("MI") { return "base64 text that is not an app receipt (not evidence)" }
        if text.hasPrefix("ew") { return "base64 text that is not a transaction receipt (not evidence)" }
        if text.hasPrefix("eyJ") {
            let all = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if all.split(separator: ".").count == 3 {
                return "JWS-like text that is not a compact JWS (not evidence)"
            }
        }
        let firstLine = text.split(separator: "\n").first.map(String.init) ?? ""
        if firstLine.contains("\t")
            && (firstLine.hasPrefix("Provider") || firstLine.hasPrefix("Start Date")
                || firstLine.hasPrefix("Event Date") || firstLine.hasPrefix("App Name"))
        {
            return
                "App Store Connect report of a kind iap-audit does not read (not transaction evidence: it has no transaction ids)"
        }
        if text.hasPrefix("\"iTunes Connect") {
            return
                "App Store Connect payments report of a layout iap-audit does not read (not transaction evidence: it has no transaction ids)"
        }
        let header = firstLine.lowercased().replacingOccurrences(of: " ", with: "")
        if header.hasPrefix("product_id,storefront_or_currency,price,valid_from") {
            return "price list (read by `iap-audit close --prices`, not by run: not evidence)"
        }
        if firstLine.contains(";") && firstLine.contains("transaction_id") {
            return "CSV separated by ';' (iap-audit reads comma-separated CSV)"
        }
        return unrecognized + " (not evidence: not JSON, CSV with a known header, a receipt, a JWS or a certificate)"
    }
}
