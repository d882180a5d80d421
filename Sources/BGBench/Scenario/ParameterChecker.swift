import Foundation

/// Collects problems by JSON path; one helper per kind of range. The messages are the
/// loader's (`bgbench validate` prints them with file positions).
public struct ParameterChecker: Sendable {
    public private(set) var problems: [ScenarioProblem] = []

    public init() {}

    public mutating func fail(_ path: String, _ message: String) {
        problems.append(ScenarioProblem(path: path, message: message))
    }

    public mutating func check(_ value: Double, in range: ClosedRange<Double>, _ path: String, note: String = "") {
        if !range.contains(value) {
            fail(
                path,
                "\(format(value)) is out of range: expected a number from \(format(range.lowerBound)) to \(format(range.upperBound))\(note)"
            )
        }
    }

    /// Durations are reported in the scenario's own notation ("15m", "1d").
    public mutating func check(_ value: TimeSpan, in range: ClosedRange<TimeSpan>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(value) is out of range: expected a duration from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    public mutating func check(_ value: Double, in range: PartialRangeFrom<Double>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(format(value)) is out of range: expected a number of at least \(format(range.lowerBound))")
        }
    }

    public mutating func check(_ value: Int, in range: ClosedRange<Int>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(value) is out of range: expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// `count` relative weights: none negative, a positive sum.
    public mutating func checkWeights(_ weights: [Double], count: Int, _ path: String) {
        guard weights.count == count else { return fail(path, "expected \(count) weights, got \(weights.count)") }
        for (i, w) in weights.enumerated() { check(w, in: 0..., "\(path)[\(i)]") }
        if weights.allSatisfy({ $0 >= 0 }) && !(weights.reduce(0, +) > 0) {
            fail(path, "expected weights with a positive sum")
        }
    }

    /// A number as a user wrote it: `2` rather than `2.0`.
    public func format(_ value: Double) -> String { Self.format(value) }

    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
