import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// A usage error: printed as Error / Usage / See --help, exit status 64.
struct UsageError: Error {
    let message: String
    let usage: String
    let command: String
}

/// Reads `--name value` options and positional arguments of one command.
struct ArgumentReader {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private var lists: [String: [String]] = [:]

    /// - Parameters:
    ///   - valued: options that take a value (`--out`); flags: options that don't (`--json`); repeatable: valued
    ///     options that may be given more than once (`--limit`), read with `values`.
    /// Throws `UsageError` for an unknown option or a missing value.
    init(
        _ arguments: [String], valued: Set<String>, flags allowed: Set<String>, repeatable: Set<String> = [], command: String,
        usage: String
    ) throws {
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" {
                positionals += arguments[(i + 1)...]
                break
            }
            if argument.hasPrefix("-") && argument.count > 1 {
                var name = argument
                var inline: String? = nil
                if let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                if valued.contains(name) {
                    if values[name] != nil && !repeatable.contains(name) {
                        throw UsageError(message: "'\(name)' given twice", usage: usage, command: command)
                    }
                    if let inline {
                        values[name] = inline
                        lists[name, default: []].append(inline)
                    } else {
                        guard i + 1 < arguments.count else {
                            throw UsageError(message: "missing value for '\(name)'", usage: usage, command: command)
                        }
                        // The next argument is an option of this command: the value was left out (`--prices --out DIR` took
                        // `--out` for the price list: found by a finance retest). A value of that spelling goes inline.
                        let next = arguments[i + 1]
                        let nextName = next.firstIndex(of: "=").map { String(next[..<$0]) } ?? next
                        if valued.contains(nextName) || allowed.contains(nextName) {
                            throw UsageError(
                                message: "missing value for '\(name)': the next argument, '\(nextName)', is an option (a value spelled so "
                                    + "goes as \(name)=VALUE)", usage: usage, command: command)
                        }
                        i += 1
                        values[name] = arguments[i]
                        lists[name, default: []].append(arguments[i])
                    }
                } else if allowed.contains(name) && inline == nil {
                    flags.insert(name)
                } else {
                    throw UsageError(message: "unknown option '\(argument)'", usage: usage, command: command)
                }
            } else {
                positionals.append(argument)
            }
            i += 1
        }
    }

    func value(_ name: String) -> String? { values[name] }
    /// Every value of a repeatable option, in the order given.
    func values(_ name: String) -> [String] { lists[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }
}
