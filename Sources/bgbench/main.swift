import BGBenchCLI
import Foundation

// The executable is only this: parse, run, map the outcome to an exit code.
exit(CommandLineTool.main(arguments: Array(CommandLine.arguments.dropFirst())))
