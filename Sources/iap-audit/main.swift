import Foundation
import IAPAuditCLI

exit(CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst())))
