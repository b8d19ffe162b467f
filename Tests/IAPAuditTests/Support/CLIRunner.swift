@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

enum CommandLineInterfaceRunner {
    static func main(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) -> Int32 {
        CommandLineInterface.main(arguments: arguments, out: out, err: err)
    }
}
