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
        let generation = RegistryGeneration.current
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
    private static func collect(
        _ value: Any, _ json: JSONValue, at path: JSONPath,
        types: inout [String: any Decodable.Type], names: inout [String: String]
    ) {
        let children = Mirror(reflecting: value).children
        switch json {
        case .object(let object) where path.isMap:
            guard let (key, entry) = object.members.first,
                let pair = children.first(where: {
                    Mirror(reflecting: $0.value).children.first?.value as? String == key
                })
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
                guard let label = child.label, case let key = snakeCase(label), let member = object[key] else {
                    continue
                }
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

    /// A Swift property name as JSONEncoder's `.convertToSnakeCase` spells it: a word
    /// starts at each upper-case letter after the first character, and a run of capitals
    /// followed by a lower-case letter is a word up to the capital before that letter
    /// (`latencyMedianNr5g` → `latency_median_nr5g`, `myURLValue` → `my_url_value`).
    /// Spelled out rather than asked of an encoder: the schema asks once per property,
    /// and an encoder per name was a fifth of a small run's start-up.
    /// ScenarioLoaderTests checks it against the encoder for every key of the defaults.
    static func snakeCase(_ name: String) -> String {
        let c = Array(name.unicodeScalars)
        func isUpper(_ i: Int) -> Bool {
            [.uppercaseLetter, .titlecaseLetter].contains(c[i].properties.generalCategory)
        }
        func isLower(_ i: Int) -> Bool { c[i].properties.generalCategory == .lowercaseLetter }
        var starts = [0], from = 1
        while let upper = (from..<max(from, c.count)).first(where: isUpper) {
            starts.append(upper)
            guard let lower = (upper..<c.count).first(where: isLower) else { break }
            if lower > upper + 1 { starts.append(lower - 1) }
            from = lower + 1
        }
        starts.append(c.count)
        return (1..<starts.count).map { k in
            var word = String.UnicodeScalarView()
            word.append(contentsOf: c[starts[k - 1]..<starts[k]])
            return String(word).lowercased()
        }.joined(separator: "_")
    }
}

/// A coding key with any name.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
