import BGBench
import BGBenchCLI
import BGBuildStamp
import Foundation

// The executable is only this: record the commit it was built from (BuildInfo), parse, run,
// map the outcome to an exit code.
BuildInfo.record(commit: BuildStamp.commit)
exit(CommandLineTool.main(arguments: Array(CommandLine.arguments.dropFirst())))
