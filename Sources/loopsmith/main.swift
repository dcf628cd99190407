import Foundation
import LoopsmithCLI

exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
