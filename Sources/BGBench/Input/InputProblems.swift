/// Everything wrong with a trace (or an LSApp file), one problem per place, in the
/// scenario loader's form: `error: trace.csv:7:3: timestamp: ...`.
public struct TraceError: Error, Sendable, CustomStringConvertible {
    public var problems: [ScenarioError.Problem]
    public init(problems: [ScenarioError.Problem]) { self.problems = problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Collects the problems of a text file by line and column; after `limit` of them, only
/// counts (a file with a bad column on every line would otherwise print millions). A
/// class, so that a reader and the closures it calls can all add to one list.
package final class LineProblems {
    static let limit = 100
    let file: String
    private(set) var problems: [ScenarioError.Problem] = []
    private(set) var dropped = 0

    package init(file: String) { self.file = file }

    package var isEmpty: Bool { problems.isEmpty }

    package func add(line: Int, column: Int, _ path: String, _ message: String) {
        add(.init(location: .position(file: file, line: line, column: column), path: path, message: message))
    }

    package func add(_ problem: ScenarioError.Problem) {
        if problems.count < Self.limit { problems.append(problem) } else { dropped += 1 }
    }

    /// The problems, with a last line saying how many were left out.
    package var all: [ScenarioError.Problem] {
        problems
            + (dropped > 0
                ? [
                    .init(
                        location: .file(file), path: "",
                        message: "\(dropped) more problems not shown (the first \(Self.limit) are above)")
                ] : [])
    }
}
