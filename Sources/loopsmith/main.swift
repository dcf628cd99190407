import Foundation
import LoopsmithCLI

RawArguments.refuseInvalidUTF8()  // before CommandLine.arguments turns bad bytes into U+FFFD
exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
