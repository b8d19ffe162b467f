import Foundation
import IAPAuditCLI

exit(Console.exitStatus(CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst()))))
