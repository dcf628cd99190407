import Foundation
import LoopsmithCLI

RawArguments.refuseInvalidUTF8()  // before CommandLine.arguments turns bad bytes into U+FFFD
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
