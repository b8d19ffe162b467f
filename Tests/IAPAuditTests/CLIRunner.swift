@testable import IAPAudit

enum CommandLineInterfaceRunner {
    static func main(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) -> Int32 {
        CommandLineInterface.main(arguments: arguments, out: out, err: err)
    }
}
