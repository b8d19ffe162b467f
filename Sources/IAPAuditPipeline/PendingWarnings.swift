import Foundation
import IAPAuditModel

/// The warnings only the import meeting a file finds (`input_emptied`: a file rewritten empty, which alerts;
/// `input_vanished`: a file no longer given), kept in the ledger (`run_parameter` `pending_warnings`, JSON) from the
/// import until a run completes. A run killed after its import, or a close (which imports and stores no run), had stored
/// the file as it is now: the next run finds it unchanged and does not read it, so without this it would never say it,
/// nor page (`--fail-on-rejected`). A completed run replaces every run parameter: said once.
enum PendingWarnings {
    static let parameter = "pending_warnings"
    static let codes: Set<RunWarning.Code> = [.inputEmptied, .inputVanished]

    /// What a run that did not complete left pending (none when the ledger holds none or cannot be read as such).
    static func decode(_ text: String?) -> [RunWarning] {
        guard let data = text?.data(using: .utf8), let list = try? JSONSerialization.jsonObject(with: data) as? [[String: String]] else {
            return []
        }
        return list.compactMap { item in
            guard let code = item["code"], let message = item["message"] else { return nil }
            return RunWarning(RunWarning.Code(rawValue: code), message, file: item["file"])
        }
    }

    /// The warnings of `warnings` to keep pending, as the parameter's text.
    static func encode(_ warnings: [RunWarning]) -> String {
        let list = warnings.filter { codes.contains($0.code) }.map { w in
            ["code": w.code.rawValue, "message": w.message].merging(w.file.map { ["file": $0] } ?? [:]) { a, _ in a }
        }
        let data = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The pending warnings this run says: those about a file it did not read again (one read again says what it is
    /// now), of a vanished file not given again, and not said already, each marked as an earlier import's.
    static func carried(_ pending: [RunWarning], read: Set<String>, given: Set<String>, said: [RunWarning]) -> [RunWarning] {
        pending.filter { w in
            !(w.file.map(read.contains) ?? false) && !said.contains { $0.code == w.code && $0.file == w.file }
                && !(w.code == .inputVanished && w.file.map(given.contains) == true)
        }
        .map { w in
            let prefix = "found by an earlier run that did not complete, or a close: "
            return RunWarning(w.code, w.message.hasPrefix(prefix) ? w.message : prefix + w.message, file: w.file)
        }
    }
}
