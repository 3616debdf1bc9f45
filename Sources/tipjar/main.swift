import Foundation
import TipJar

// `tipjar`: the command line. It only parses arguments and wires the layers together.
exit(await CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
