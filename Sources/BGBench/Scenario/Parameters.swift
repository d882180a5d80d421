import Foundation
import Synchronization

/// A component's parameters (a policy's, a platform's, a content kind's, the processing
/// task's): a Codable struct with defaults that declares, for every field, its JSON name,
/// unit, range and a one-line doc with the source of its default. The field list drives
/// range validation (`check(into:at:)`), the parameter tables of docs/scenario.md and
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

/// One declared parameter of a `ParameterSet`: JSON name, unit, range as the docs show it,
/// a one-line doc, and the range check.
public struct ParameterField<Root> {
    public let name: String
    public let unit: String
    /// The range as docs/scenario.md shows it ("1m to 7d", "0 to 1", "≥ 0").
    public let range: String
    public let doc: String
    /// A nested parameter set's type (`routine_change`), whose fields the docs list under this one.
    public let nested: (any ParameterSet.Type)?
    /// How the docs name a nested set's entries: "" (a group), "[i]" (a list), ".<name>" (a map).
    public let nestedPath: String
    /// The nested set's values in a value of Root (the docs show their defaults).
    let nestedValues: (Root) -> [any ParameterSet]
    let check: (Root, inout ParameterChecker, String) -> Void

    public init(name: String, unit: String, range: String, doc: String,
                check: @escaping (Root, inout ParameterChecker, String) -> Void) {
        (self.name, self.unit, self.range, self.doc, self.check) = (name, unit, range, doc, check)
        (nested, nestedPath, nestedValues) = (nil, "", { _ in [] })
    }

    init(name: String, unit: String, range: String, doc: String, nested: any ParameterSet.Type, nestedPath: String,
         nestedValues: @escaping (Root) -> [any ParameterSet], check: @escaping (Root, inout ParameterChecker, String) -> Void) {
        (self.name, self.unit, self.range, self.doc, self.check) = (name, unit, range, doc, check)
        (self.nested, self.nestedPath, self.nestedValues) = (nested, nestedPath, nestedValues)
    }

    /// A duration in a fixed range.
    public static func duration(_ key: KeyPath<Root, TimeSpan>, _ name: String, in range: ClosedRange<TimeSpan>,
                                _ doc: String) -> Self {
        Self(name: name, unit: "duration", range: "\(range.lowerBound) to \(range.upperBound)", doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range, path)
        }
    }

    /// A duration whose range depends on other fields; `shown` is the range as the docs say it.
    public static func duration(_ key: KeyPath<Root, TimeSpan>, _ name: String, in range: @escaping (Root) -> ClosedRange<TimeSpan>,
                                shown: String, _ doc: String) -> Self {
        Self(name: name, unit: "duration", range: shown, doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range(root), path)
        }
    }

    /// A number in a fixed range.
    public static func number(_ key: KeyPath<Root, Double>, _ name: String, _ unit: String, in range: ClosedRange<Double>,
                              _ doc: String) -> Self {
        Self(name: name, unit: unit, range: "\(ParameterChecker.format(range.lowerBound)) to \(ParameterChecker.format(range.upperBound))",
             doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range, path)
        }
    }

    /// A number whose range depends on other fields; `note` ends the error message.
    public static func number(_ key: KeyPath<Root, Double>, _ name: String, _ unit: String,
                              in range: @escaping (Root) -> ClosedRange<Double>, shown: String, note: String = "",
                              _ doc: String) -> Self {
        Self(name: name, unit: unit, range: shown, doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range(root), path, note: note)
        }
    }

    /// A number with a lower bound only.
    public static func number(_ key: KeyPath<Root, Double>, _ name: String, _ unit: String, atLeast bound: Double,
                              _ doc: String) -> Self {
        Self(name: name, unit: unit, range: "≥ \(ParameterChecker.format(bound))", doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: bound..., path)
        }
    }

    /// An integer in a fixed range.
    public static func integer(_ key: KeyPath<Root, Int>, _ name: String, _ unit: String, in range: ClosedRange<Int>,
                               _ doc: String) -> Self {
        Self(name: name, unit: unit, range: "\(range.lowerBound) to \(range.upperBound)", doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range, path)
        }
    }

    /// A switch.
    public static func flag(_ key: KeyPath<Root, Bool>, _ name: String, _ doc: String) -> Self {
        Self(name: name, unit: "boolean", range: "", doc: doc) { _, _, _ in }
    }

    /// One of a String enum's values (the decoder rejects the others).
    public static func choice<E: CaseIterable & RawRepresentable<String>>(_ key: KeyPath<Root, E>, _ name: String,
                                                                         _ doc: String) -> Self {
        Self(name: name, unit: "choice", range: E.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "), doc: doc) { _, _, _ in }
    }

    /// A nested parameter set (a reusable group of fields, e.g. `routine_change`).
    public static func group<G: ParameterSet>(_ key: KeyPath<Root, G>, _ name: String, _ doc: String) -> Self {
        Self(name: name, unit: "object", range: "", doc: doc, nested: G.self, nestedPath: "",
             nestedValues: { [$0[keyPath: key]] }) { root, c, path in
            root[keyPath: key].check(into: &c, at: path)
        }
    }

    /// A list of parameter sets (`utc_offsets`), each checked at `path[i]`; at most `maxCount`.
    public static func list<E: ParameterSet>(_ key: KeyPath<Root, [E]>, _ name: String, maxCount: Int? = nil,
                                             _ doc: String) -> Self {
        Self(name: name, unit: "list", range: maxCount.map { "at most \($0) entries" } ?? "", doc: doc, nested: E.self,
             nestedPath: "[i]", nestedValues: { $0[keyPath: key] }) { root, c, path in
            let list = root[keyPath: key]
            if let maxCount, list.count > maxCount { c.fail(path, "expected at most \(maxCount) entries, got \(list.count)") }
            for (i, element) in list.enumerated() { element.check(into: &c, at: "\(path)[\(i)]") }
        }
    }

    /// A map of parameter sets by free names (`archetypes`), each checked at `path.<name>`,
    /// in the order of the names.
    public static func map<E: ParameterSet>(_ key: KeyPath<Root, [String: E]>, _ name: String, _ doc: String) -> Self {
        Self(name: name, unit: "map", range: "", doc: doc, nested: E.self, nestedPath: ".<name>",
             nestedValues: { $0[keyPath: key].sorted { $0.key < $1.key }.map(\.value) }) { root, c, path in
            for (entry, element) in root[keyPath: key].sorted(by: { $0.key < $1.key }) { element.check(into: &c, at: path + "." + entry) }
        }
    }

    /// 24 (or `count`) relative weights: none negative, a positive sum.
    public static func weights(_ key: KeyPath<Root, [Double]>, _ name: String, count: Int, _ doc: String) -> Self {
        Self(name: name, unit: "weights", range: "\(count) numbers ≥ 0, positive sum", doc: doc) { root, c, path in
            c.checkWeights(root[keyPath: key], count: count, path)
        }
    }
}

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
            fail(path, "\(format(value)) is out of range: expected a number from \(format(range.lowerBound)) to \(format(range.upperBound))\(note)")
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

// MARK: - The parameter sets of registered components, in the scenario

/// A key of any name, for the parameter sets keyed by component name.
struct ComponentKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Values that the scenario schema walks by JSON key instead of by Swift property
/// (`Schema` in ScenarioSchema.swift): the sections keyed by component name.
protocol SchemaMembers {
    var schemaMembers: [(key: String, value: Any)] { get }
}

/// Parameter sets by component name: what was set, defaults for the rest.
struct ParameterStore: Sendable {
    var values: [String: any ParameterSet] = [:]

    func value(_ name: String, _ type: any ParameterSet.Type) -> any ParameterSet { values[name] ?? type.init() }

    func equals(_ other: ParameterStore) -> Bool {
        func same<T: ParameterSet>(_ a: T, _ b: any ParameterSet) -> Bool { (b as? T) == a }
        for name in Set(values.keys).union(other.values.keys) {
            switch (values[name], other.values[name]) {
            case let (a?, b?): if !same(a, b) { return false }
            case let (a?, nil): if !same(a, type(of: a).init()) { return false }
            case let (nil, b?): if !same(b, type(of: b).init()) { return false }
            case (nil, nil): break
            }
        }
        return true
    }

    /// Encodes each entry's set (defaults where none was set) under its key.
    func encode(_ entries: [(key: String, type: any ParameterSet.Type)],
                to container: inout KeyedEncodingContainer<ComponentKey>) throws {
        for (key, type) in entries { try container.encode(value(key, type), forKey: ComponentKey(key)) }
    }

    /// Decodes the entries present; the decoder's key strategy may have renamed a key to a
    /// Swift property name, so both spellings are tried.
    mutating func decode(_ entries: [(key: String, type: any ParameterSet.Type)],
                         from container: KeyedDecodingContainer<ComponentKey>) throws {
        func decodeOne<T: ParameterSet>(_: T.Type, _ key: ComponentKey) throws -> any ParameterSet {
            try container.decode(T.self, forKey: key)
        }
        for (name, type) in entries {
            let candidates = [name, Schema.shared.swiftNames[name]].compactMap { $0 }.map { ComponentKey($0) }
            guard let key = candidates.first(where: container.contains) else { continue }
            values[name] = try decodeOne(type, key)
        }
    }
}

/// `policies`: each registered policy's parameters under its name (`policies.fixed`).
/// Registering a policy (`PolicyRegistry`) is what makes its keys known; a policy without
/// parameters has no entry.
public struct PolicyParameters: Codable, Sendable, Equatable, SchemaMembers {
    var store = ParameterStore()

    public init() {}

    /// A policy's parameters: `scenario.policies[AdaptivePolicy.self].habitLift = 4`.
    public subscript<P: WakePolicy>(_ policy: P.Type) -> P.Parameters {
        get { store.values[P.name] as? P.Parameters ?? P.Parameters() }
        set { store.values[P.name] = newValue }
    }

    /// The parameters of the registered policy `name`; nil when it has none or is unknown.
    public func parameters(named name: String) -> (any ParameterSet)? {
        PolicyRegistry.named(name)?.parameters.map { store.value(name, $0) }
    }

    /// (name, parameter type) of every registered policy with parameters.
    static var entries: [(key: String, type: any ParameterSet.Type)] {
        PolicyRegistry.all.compactMap { entry in entry.parameters.map { (entry.name, $0) } }
    }

    var schemaMembers: [(key: String, value: Any)] { Self.entries.map { ($0.key, store.value($0.key, $0.type)) } }

    public static func == (a: Self, b: Self) -> Bool { a.store.equals(b.store) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ComponentKey.self)
        try store.encode(Self.entries, to: &container)
    }

    public init(from decoder: any Decoder) throws {
        try store.decode(Self.entries, from: decoder.container(keyedBy: ComponentKey.self))
    }
}

/// `platform`: the platform by name, and each registered platform's parameters under its
/// key (`platform.ios_bgtask`: the name with `_` for `-`).
public struct PlatformModel: Codable, Sendable, Equatable, SchemaMembers {
    /// The platform profile by name (`bgbench list` shows them).
    public var name = "ios-bgtask"
    var store = ParameterStore()

    public init() {}

    /// A platform's parameters: `scenario.platform[IOSBGTask.self].budgetCap = 4`.
    public subscript<F: PlatformRules>(_ platform: F.Type) -> F.Parameters {
        get { store.values[F.parametersKey] as? F.Parameters ?? F.Parameters() }
        set { store.values[F.parametersKey] = newValue }
    }

    /// (key, parameter type) of every registered platform with parameters.
    static var entries: [(key: String, type: any ParameterSet.Type)] {
        PlatformRegistry.all.compactMap { platform in
            func entry<F: PlatformRules>(_: F.Type) -> (key: String, type: any ParameterSet.Type)? {
                F.Parameters.self == NoParameters.self ? nil : (F.parametersKey, F.Parameters.self)
            }
            return entry(platform)
        }
    }

    /// The parameters under `key` (`ios_bgtask`); nil when no platform has that key.
    public func parameters(key: String) -> (any ParameterSet)? {
        Self.entries.first { $0.key == key }.map { store.value(key, $0.type) }
    }

    var schemaMembers: [(key: String, value: Any)] {
        [("name", name)] + Self.entries.map { ($0.key, store.value($0.key, $0.type)) }
    }

    public static func == (a: Self, b: Self) -> Bool { a.name == b.name && a.store.equals(b.store) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ComponentKey.self)
        try container.encode(name, forKey: ComponentKey("name"))
        try store.encode(Self.entries, to: &container)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ComponentKey.self)
        name = try container.decodeIfPresent(String.self, forKey: ComponentKey("name")) ?? name
        try store.decode(Self.entries, from: container)
    }
}

public extension PlatformRules {
    /// The key of the platform's parameters under `platform` (`ios-bgtask` → `ios_bgtask`).
    static var parametersKey: String { name.replacingOccurrences(of: "-", with: "_") }
}

/// A counter bumped at every policy registration, so that what is derived from the
/// registry (the scenario schema) is rebuilt.
enum RegistryGeneration {
    static let value = Atomic<Int>(0)
    static var current: Int { value.load(ordering: .sequentiallyConsistent) }
}
