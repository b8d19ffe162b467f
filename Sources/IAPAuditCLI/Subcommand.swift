/// What each `iap-audit` command declares: its name, usage line, options and help; `options` and `read` come with it.
protocol Subcommand {
    /// The command's word (`run`).
    static var name: String { get }
    static var usage: String { get }
    /// The options it takes a value for.
    static var valuedOptions: Set<String> { get }
    /// Its options that take no value (`-h` and `--help` among them).
    static var flags: Set<String> { get }
    /// Its valued options it takes more than once (none by default).
    static var repeatable: Set<String> { get }
    /// The text `-h` and `--help` write (`HelpText`).
    static var help: String { get }
    /// Runs the command on its arguments (those after its name); returns the exit status. Throws `UsageError`.
    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32
}

extension Subcommand {
    static var repeatable: Set<String> { [] }

    /// Every option the command accepts (docs/reference.md lists each, `ReferenceDocTests`).
    static var options: Set<String> { valuedOptions.union(flags) }

    /// The command's arguments, or nil once `-h` or `--help` has written the help. Throws `UsageError` for an unknown
    /// option or a missing value.
    static func read(_ arguments: [String], out: (String) -> Void) throws -> ArgumentReader? {
        let args = try ArgumentReader(arguments, valued: valuedOptions, flags: flags, repeatable: repeatable, command: name, usage: usage)
        if args.has("-h") || args.has("--help") {
            out(help)
            return nil
        }
        return args
    }
}
