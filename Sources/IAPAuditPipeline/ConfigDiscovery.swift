import Foundation
import IAPAuditIngest
import IAPAuditModel

/// Finds iap-audit's config among the inputs, for a run given no `--config`: a user who keeps
/// `config.json` beside the logs gets its product types, bundle ids and allowlist, not a run that
/// silently ignores them.
public enum ConfigDiscovery {
    /// The iap-audit config files (`FileImporter.isAuditConfig`: a JSON object with `bundle_ids`,
    /// `sandbox_allowlist` or a `products` object) at the top level of the folders among `paths` —
    /// not in their sub-folders, not hidden — sorted, each path written as the run lists inputs
    /// (`folder/name`). Files named on their own are not looked at. A file reached twice (one folder named
    /// twice, `same` and `./same`, or through a link) is one config, listed as first reached; a symbolic link to one
    /// is one (found by a user test: a folder of links to the sample's files was audited without its config).
    public static func configs(in paths: [String]) -> [String] {
        var found: [String] = []
        var resolved = Set<String>()
        for folder in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
                let names = try? FileManager.default.contentsOfDirectory(atPath: folder)
            else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                // A symbolic link to a config is that config (the inputs beside it are followed the same way).
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: InputCollector.realPath(path) ?? path),
                    attributes[.type] as? FileAttributeType == .typeRegular,
                    let size = attributes[.size] as? Int, size <= FileImporter.maxConfigBytes,
                    let data = FileManager.default.contents(atPath: path), FileImporter.isAuditConfig(data),
                    resolved.insert(InputCollector.realPath(path) ?? path).inserted
                else { continue }
                found.append(path)
            }
        }
        return found
    }

    /// How the run's config file is listed when it is among the inputs (given, the default, or found).
    static let usedNote = "iap-audit configuration (used as --config; not evidence)"

    /// The warning for several configs found (none is used: which one would be meant?).
    public static func severalFound(_ paths: [String]) -> RunWarning {
        RunWarning(
            .severalConfigs,
            "\(paths.count) iap-audit config files in the input folder (\(paths.joined(separator: ", "))): none is used, so product "
                + "types, bundle ids and the sandbox allowlist are unknown; pass the one to use with --config")
    }
}
