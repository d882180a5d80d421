import Foundation
import Synchronization

// The parameter sets of registered components, in the scenario: `scenario.policies` and
// `scenario.platform` hold one per registered policy and platform, keyed by name.

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
    func encode(
        _ entries: [(key: String, type: any ParameterSet.Type)],
        to container: inout KeyedEncodingContainer<ComponentKey>
    ) throws {
        for (key, type) in entries { try container.encode(value(key, type), forKey: ComponentKey(key)) }
    }

    /// Decodes the entries present; the decoder's key strategy may have renamed a key to a
    /// Swift property name, so both spellings are tried.
    mutating func decode(
        _ entries: [(key: String, type: any ParameterSet.Type)],
        from container: KeyedDecodingContainer<ComponentKey>
    ) throws {
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

    /// Only policy `name`'s parameters (the others at their defaults): what a run of that
    /// policy alone reads.
    public func only(_ name: String) -> PolicyParameters {
        var kept = PolicyParameters()
        kept.store.values[name] = store.values[name]
        return kept
    }

    /// (name, parameter type) of every registered policy with parameters.
    static var entries: [(key: String, type: any ParameterSet.Type)] {
        PolicyRegistry.all.compactMap { entry in entry.parameters.map { (entry.name, $0) } }
    }

    var schemaMembers: [(key: String, value: Any)] { Self.entries.map { ($0.key, store.value($0.key, $0.type)) } }

    public static func == (a: Self, b: Self) -> Bool { a.store.equals(b.store) }

    /// An encoder's `userInfo` key: the names of the policies a report's run uses. Given,
    /// only bgbench's own policies and those are encoded, so a policy registered elsewhere
    /// in the process (a package's, another test's) changes no run.json of a run without it.
    static let runPoliciesKey = CodingUserInfoKey(rawValue: "bgbench.runPolicies")!

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ComponentKey.self)
        var entries = Self.entries
        if let run = encoder.userInfo[Self.runPoliciesKey] as? Set<String> {
            let builtIn = Set(PolicyRegistry.builtIn.map(\.name))
            entries = entries.filter { builtIn.contains($0.key) || run.contains($0.key) }
        }
        try store.encode(entries, to: &container)
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
