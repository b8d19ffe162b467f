import Foundation
import IAPAuditModel

/// `ask-apple`'s evidence file: `FOLDER/ask-apple-YYYYMMDDTHHMMSSZ.jsonl` (the UTC time it was written), one
/// `AppleAnswer.evidenceLine` a line, in the order asked. Written under a temporary name, then linked to its name, which
/// is never overwritten: a name taken gets `-2`, `-3`, … (`ask-apple-20261207T100000Z-2.jsonl`).
public enum EvidenceFile {
    /// Writes `answers` into `folder` (made if missing); returns the file's path.
    /// - Throws: `AuditError.output` when the folder or the file cannot be written.
    public static func write(_ answers: [AppleAnswer], folder: String, atMs: Int64) throws -> String {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw AuditError.output(folder, "cannot make the evidence folder: \(error.localizedDescription)")
        }
        let text = answers.map { $0.evidenceLine + "\n" }.joined()
        let temporary = folder + "/.ask-apple-\(getpid())-\(atMs).jsonl.partial"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
            throw AuditError.output(temporary, "cannot write the evidence file")
        }
        defer { unlink(temporary) }
        let stem = folder + "/ask-apple-" + name(atMs)
        for n in 1...1000 {
            let path = stem + (n == 1 ? "" : "-\(n)") + ".jsonl"
            // link(2) fails when the name is taken: an answer file is never replaced.
            if link(temporary, path) == 0 { return path }
            guard errno == EEXIST else {
                throw AuditError.output(path, "cannot name the evidence file: \(String(cString: strerror(errno)))")
            }
        }
        throw AuditError.output(stem + ".jsonl", "a thousand evidence files of this second already")
    }

    /// `YYYYMMDDTHHMMSSZ` of `ms` (UTC).
    static func name(_ ms: Int64) -> String {
        let iso = Timestamp.iso(ms)  // 2026-12-07T10:00:00.123Z
        return String(iso.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }
}
