import BGBench

/// The command line front-end: turns arguments into a run and an exit code.
public enum CommandLineTool {
    public static func main(arguments: [String]) -> Int32 {
        print("bgbench: under construction")
        return 0
    }
}
