import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// `iap-audit sample`.
enum SampleCommand: Subcommand {
    static let name = "sample", help = HelpText.sample
    static let usage = "iap-audit sample --out DIR [--transactions N] [--seed S]"
    /// The options `sample` takes a value for, and its flags.
    static let valuedOptions: Set<String> = ["--transactions", "--seed", "--out"]
    static let flags: Set<String> = ["-h", "--help"]

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        if let extra = args.positionals.first {
            throw UsageError(message: "unexpected argument '\(extra)'", usage: usage, command: "sample")
        }
        guard let transactions = Int(args.value("--transactions") ?? "2000"), transactions > 0, transactions <= 50_000_000 else {
            throw UsageError(message: "--transactions must be a whole number from 1 to 50000000", usage: usage, command: "sample")
        }
        guard let seed = UInt64(args.value("--seed") ?? "1") else {
            throw UsageError(message: "--seed must be an unsigned integer", usage: usage, command: "sample")
        }
        guard let directory = args.value("--out") else {
            throw UsageError(message: "missing '--out DIR' (the folder to write the sample into)", usage: usage, command: "sample")
        }
        let summary: SampleSummary
        do {
            summary = try SampleGenerator(transactions: transactions, seed: seed).write(to: directory)
        } catch {
            throw AuditError.output(directory, (error as NSError).localizedDescription)
        }
        // Files at the top level by name, those in a folder by their count.
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        var names: [String] = []
        var folders: [(String, Int)] = []
        for path in summary.files {
            let relative = path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : (path as NSString).lastPathComponent
            let parts = relative.split(separator: "/", maxSplits: 1)
            if parts.count == 1 {
                names.append(relative)
            } else if let last = folders.last, last.0 == String(parts[0]) {
                folders[folders.count - 1].1 += 1
            } else {
                folders.append((String(parts[0]), 1))
            }
        }
        names += folders.map { "\($0.0)/ (\($0.1) files)" }
        out(
            "Wrote \(names.joined(separator: ", ")) into \(directory) (\(summary.transactions) client transactions, "
                + "\(summary.plantedFindings) planted findings and the close of 2026-10 in answer-key.json)")
        // The support ticket's purchase comes on top of the N asked for (planted last, so that the rest of the
        // sample stays the same bytes): only a larger count was raised.
        if summary.transactions > transactions + 1 {
            out(
                "Note: --transactions \(transactions) was raised to \(summary.transactions - 1) (and the support ticket's "
                    + "purchase): the planted scenarios alone need that many")
        }
        return 0
    }
}
