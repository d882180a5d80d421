import Foundation
import Synchronization

/// A JSON path as users read it (`population.routine.opens[1].at`) and as the schema knows
/// it, with array indices as `[]` and map keys as `*` (`population.routine.opens[].at`).
struct JSONPath: Sendable {
    var display = ""
    var schema = ""

    static let root = JSONPath()

    var isMap: Bool { ScenarioLoader.mapPaths.contains(schema) }

    /// The member `key`: a field, or an entry when this path is a map.
    func child(_ key: String) -> JSONPath {
        JSONPath(display: JSONPathText.key(display, key), schema: JSONPathText.key(schema, isMap ? "*" : key))
    }

    func index(_ i: Int) -> JSONPath {
        JSONPath(display: JSONPathText.index(display, i), schema: schema + "[]")
    }
}

/// The defaults as a JSON tree, the Swift type of every leaf (number, string, bool) by schema
/// path, so that a user's leaf can be checked against its type before decoding, and the Swift
/// name of every JSON key.
struct Schema: @unchecked Sendable /* immutable after init */ {
    let defaults: JSONValue
    let leafTypes: [String: any Decodable.Type]
    /// JSON key → Swift property name. `.convertFromSnakeCase` is not the inverse of
    /// `.convertToSnakeCase`: it reads `latency_median_nr5g` as `latencyMedianNr5G`.
    let swiftNames: [String: String]

    /// The schema of the registry as it is now: rebuilt after a policy is registered, so
    /// that its `policies.<name>.*` keys are known.
    static var shared: Schema {
        let generation = RegistryGeneration.value.load(ordering: .sequentiallyConsistent)
        return cache.withLock { cache in
            if let cached = cache, cached.generation == generation { return cached.schema }
            let schema = Schema()
            cache = (generation, schema)
            return schema
        }
    }

    private static let cache = Mutex<(generation: Int, schema: Schema)?>(nil)

    private init() {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        defaults = try! JSONParser.parse(String(decoding: try! encoder.encode(Scenario()), as: UTF8.self)).root
        var types: [String: any Decodable.Type] = [:], names: [String: String] = [:]
        Schema.collect(Scenario(), defaults, at: .root, types: &types, names: &names)
        (leafTypes, swiftNames) = (types, names)
    }

    /// Walks a default value and its JSON together; maps and arrays by their first element.
    private static func collect(_ value: Any, _ json: JSONValue, at path: JSONPath,
                                types: inout [String: any Decodable.Type], names: inout [String: String]) {
        let children = Mirror(reflecting: value).children
        switch json {
        case .object(let object) where path.isMap:
            guard let (key, entry) = object.members.first,
                  let pair = children.first(where: { Mirror(reflecting: $0.value).children.first?.value as? String == key })
            else { return }
            let entryValue = Mirror(reflecting: pair.value).children.dropFirst().first!.value
            collect(entryValue, entry, at: path.child(key), types: &types, names: &names)
        case .object(let object) where value is SchemaMembers:
            // Sections keyed by component name (`policies`, `platform`).
            for (key, member) in (value as! SchemaMembers).schemaMembers {
                guard let json = object[key] else { continue }
                collect(member, json, at: path.child(key), types: &types, names: &names)
            }
        case .object(let object):
            for child in children {
                guard let label = child.label, case let key = snakeCase(label), let member = object[key] else { continue }
                names[key] = label
                collect(child.value, member, at: path.child(key), types: &types, names: &names)
            }
        case .array(let elements):
            if let first = elements.first, let element = children.first?.value {
                collect(element, first, at: path.index(0), types: &types, names: &names)
            }
        default:
            types[path.schema] = type(of: value) as? any Decodable.Type
        }
    }

    /// A Swift property name as JSONEncoder's `.convertToSnakeCase` spells it.
    static func snakeCase(_ name: String) -> String {
        struct Field: Encodable {
            let name: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encodeNil(forKey: AnyKey(stringValue: name))
            }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try! encoder.encode(Field(name: name)), as: UTF8.self)
        return try! JSONParser.parse(json).root.object!.keys[0]
    }
}

/// A coding key with any name.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
