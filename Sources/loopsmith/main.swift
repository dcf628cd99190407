import Foundation
import Loopsmith

exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
