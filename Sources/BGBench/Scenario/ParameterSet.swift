import Foundation

/// A component's parameters (a policy's, a platform's, a content kind's, the processing
/// task's): a Codable struct with defaults that declares, for every field, its JSON name,
/// unit, range and a one-line doc with the source of its default. That doc is the
/// parameter's only documentation (its stored property carries no `///`). The field list
/// drives range validation (`check(into:at:)`), the parameter tables of docs/scenario.md and
/// `bgbench scenario`; JSON coding is the struct's own Codable (snake_case keys).
///
/// A policy declares its parameters in its own file:
///
/// ```swift
/// public struct FixedParameters: ParameterSet {
///     public var interval = TimeSpan.minutes(15)
///     public init() {}
///     public static var fields: [ParameterField<Self>] {[
///         .duration(\.interval, "interval", in: .minutes(1)...(.days(7)), "spacing of the attempts; MODEL.md §7: 15 min"),
///     ]}
/// }
/// extension FixedPolicy { public typealias Parameters = FixedParameters }
/// ```
///
/// and reads them in its init with `context.scenario.policies[FixedPolicy.self]`.
public protocol ParameterSet: Codable, Sendable, Equatable {
    init()
    /// Every field, in the order of the docs.
    static var fields: [ParameterField<Self>] { get }
    /// The field that makes the component wake more or less often, with values to sweep
    /// (for comparisons of policies at equal aggressiveness); nil for none.
    static var knob: AggressivenessKnob? { get }
    /// Rules that tie fields together (beyond each field's own range); `path` is the
    /// set's JSON path (`policies.adaptive`). Default: none.
    func validate(into checker: inout ParameterChecker, at path: String)
}

public extension ParameterSet {
    static var knob: AggressivenessKnob? { nil }
    func validate(into checker: inout ParameterChecker, at path: String) {}

    /// Every field's range, then the cross-field rules.
    func check(into checker: inout ParameterChecker, at path: String) {
        for field in Self.fields { field.check(self, &checker, JSONPathText.key(path, field.name)) }
        validate(into: &checker, at: path)
    }
}

/// The parameters of a component that has none (the default of `WakePolicy.Parameters`
/// and `PlatformRules.Parameters`): nothing in the scenario.
public struct NoParameters: ParameterSet {
    public init() {}
    public static var fields: [ParameterField<Self>] { [] }
}

/// A declared aggressiveness knob: the field (its JSON name), the direction in which the
/// component wakes more often, and values to sweep as `--set` would take them.
public struct AggressivenessKnob: Sendable, Equatable {
    public enum Direction: String, Sendable { case lower, higher }
    public var field: String
    /// Values of `field` that wake more often are `lower` (an interval) or `higher` (a rate).
    public var moreAggressive: Direction
    public var sweep: [String]
    public init(_ field: String, moreAggressive: Direction, sweep: [String]) {
        (self.field, self.moreAggressive, self.sweep) = (field, moreAggressive, sweep)
    }
}
