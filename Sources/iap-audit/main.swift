import Foundation
import IAPAudit

exit(CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst())))
