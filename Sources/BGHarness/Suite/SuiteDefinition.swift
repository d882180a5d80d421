import BGBench

/// A benchmark suite (docs/suite.md): a versioned list of tasks, each a scenario with a
/// fleet, days, warm-up and seeds fixed, whose policies are scored against `fixed` with
/// `oracle` and `prophet` as references. The definition is a JSON file (the shipped
/// `Datasets/suites/v1.json`); its SHA-256 is the suite's identity, so a changed
/// definition is another suite even under the same version.
public struct SuiteDefinition: Sendable, Equatable {
    /// `bgbench-suite`, the version (`1`) and the definition's SHA-256.
    public var name: String
    public var version: String
    public var sha256: String
    public var description: String
    public var tasks: [SuiteTask]
    /// The tasks and sizes of `--quick`.
    public var quick: Quick
    /// The limits every task's scored policy is held to, unless a task names its own.
    public var constraints: [SuiteConstraint]
    /// The seed-level bootstrap of the aggregate's median (docs/suite.md, "The aggregate").
    public var bootstrapResamples: Int
    public var bootstrapSeed: UInt64
    /// What the suite leaves out, and why (scorecard.md prints it).
    public var excluded: [String]

    public struct Quick: Sendable, Equatable {
        public var tasks: [String]
        public var size: SuiteSize
    }
}

/// A task's fleet: devices, days, warm-up days and seeds (`seed`, `seed + 1`, ...).
public struct SuiteSize: Sendable, Equatable {
    public var devices: Int
    public var days: Int
    public var warmupDays: Int
    public var seed: UInt64
    public var replications: Int
}

/// A constraint on the scored policy's point: its metric's mean across seeds at most (or
/// at least) a limit.
public struct SuiteConstraint: Sendable, Equatable {
    public var metric: String
    public var limit: Double
    /// true: the mean must not exceed `limit`; false: it must reach it.
    public var isMaximum: Bool
}

/// One task of a suite.
public struct SuiteTask: Sendable, Equatable {
    public var id: String
    /// A preset's name (`news`) or `default`.
    public var scenario: String
    /// `--set` overrides over the preset, in order.
    public var overrides: [String]
    /// The users: MODEL.md's population, or users with habits drawn by bgbench from a seed.
    public var population: Population
    public var size: SuiteSize
    public var constraints: [SuiteConstraint]
    /// Why the task is in the suite (docs/suite.md's table).
    public var why: String

    public enum Population: Sendable, Equatable {
        case model
        case habits(seed: UInt64)
    }
}

/// A suite definition that cannot be used: where, and what was expected.
public struct SuiteError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension SuiteDefinition {
    /// The suite's name in a definition's `suite` member.
    public static let kind = "bgbench-suite"

    /// The definition in `text` (read from `file`, for messages), checked: every member
    /// known, every value of its type and range, task ids unique, `quick`'s tasks defined.
    public static func parse(_ text: String, file: String) throws(SuiteError) -> SuiteDefinition {
        let document: JSONDocument
        do { document = try JSONParser.parse(text) } catch {
            throw SuiteError("\(file):\(error.position.line):\(error.position.column): \(error.message)")
        }
        var reader = SuiteReader(file: file, document: document)
        return try reader.definition(sha256: SHA256.hex(Array(text.utf8)))
    }
}

/// Reads a definition's members by JSON path, naming file, line and path in each error.
private struct SuiteReader {
    let file: String
    let document: JSONDocument

    /// An error at the value of `path` (at its key with `atKey`, as for an unknown member).
    func fail(_ path: String, _ message: String, atKey: Bool = false) -> SuiteError {
        let at =
            atKey
            ? document.keyPositions[path] ?? document.valuePositions[path]
            : document.valuePositions[path] ?? document.keyPositions[path]
        let place = at.map { "\(file):\($0.line):\($0.column)" } ?? file
        return SuiteError("\(place): \(path.isEmpty ? "the definition" : path): \(message)")
    }

    func object(_ path: String, _ value: JSONValue?, keys: Set<String>, required: Set<String>) throws(SuiteError)
        -> JSONObject
    {
        guard let object = value?.object else { throw fail(path, "expected an object") }
        for key in object.keys where !keys.contains(key) {
            throw fail(
                JSONPathText.key(path, key),
                "unknown member; expected one of \(keys.sorted().joined(separator: ", "))", atKey: true)
        }
        for key in required.sorted() where object[key] == nil {
            throw fail(path, "member '\(key)' is missing")
        }
        return object
    }

    func string(_ path: String, _ value: JSONValue?) throws(SuiteError) -> String {
        guard case .string(let s)? = value, !s.isEmpty else { throw fail(path, "expected a non-empty string") }
        return s
    }

    func strings(_ path: String, _ value: JSONValue?) throws(SuiteError) -> [String] {
        guard let array = value?.array else { throw fail(path, "expected an array of strings") }
        var out: [String] = []
        for (i, element) in array.enumerated() { out.append(try string(JSONPathText.index(path, i), element)) }
        return out
    }

    func integer(_ path: String, _ value: JSONValue?, in range: ClosedRange<Int>) throws(SuiteError) -> Int {
        guard case .number(let x, _)? = value, x == x.rounded(), let n = Int(exactly: x), range.contains(n) else {
            throw fail(path, "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    func number(_ path: String, _ value: JSONValue?) throws(SuiteError) -> Double {
        guard case .number(let x, _)? = value, x.isFinite else { throw fail(path, "expected a number") }
        return x
    }

    static let sizeKeys: Set<String> = ["devices", "days", "warmup_days", "seed", "replications"]

    /// A size's members over `base` (each optional where a base exists).
    func size(_ path: String, _ o: JSONObject, over base: SuiteSize?) throws(SuiteError) -> SuiteSize {
        func member(_ key: String, _ range: ClosedRange<Int>, _ fallback: Int?) throws(SuiteError) -> Int {
            if let value = o[key] { return try integer(JSONPathText.key(path, key), value, in: range) }
            guard let fallback else { throw fail(path, "member '\(key)' is missing") }
            return fallback
        }
        let devices = try member("devices", 1...100_000, base?.devices)
        let days = try member("days", 1...3650, base?.days)
        let warmup = try member("warmup_days", 0...3649, base?.warmupDays)
        guard warmup < days else {
            throw fail(JSONPathText.key(path, "warmup_days"), "expected fewer than days (\(days))")
        }
        let seed = try member("seed", 0...Int(Int32.max), base.map { Int($0.seed) })
        let replications = try member("replications", 2...100, base?.replications)
        return SuiteSize(
            devices: devices, days: days, warmupDays: warmup, seed: UInt64(seed), replications: replications)
    }

    func constraints(_ path: String, _ value: JSONValue?) throws(SuiteError) -> [SuiteConstraint] {
        guard let array = value?.array else { throw fail(path, "expected an array of constraints") }
        var out: [SuiteConstraint] = []
        for (i, element) in array.enumerated() {
            let p = JSONPathText.index(path, i)
            let o = try object(p, element, keys: ["metric", "max", "min"], required: ["metric"])
            let metric = try string(JSONPathText.key(p, "metric"), o["metric"])
            guard let row = MetricTable.named(metric), row.kind.quantity != nil else {
                throw fail(
                    JSONPathText.key(p, "metric"),
                    "'\(metric)' is not a summary.csv metric (a quantile cannot be a constraint)")
            }
            switch (o["max"], o["min"]) {
            case (let max?, nil):
                out.append(.init(metric: metric, limit: try number(JSONPathText.key(p, "max"), max), isMaximum: true))
            case (nil, let min?):
                out.append(.init(metric: metric, limit: try number(JSONPathText.key(p, "min"), min), isMaximum: false))
            default: throw fail(p, "expected exactly one of 'max' and 'min'")
            }
        }
        return out
    }

    mutating func definition(sha256: String) throws(SuiteError) -> SuiteDefinition {
        let root = try object(
            "", document.root,
            keys: [
                "suite", "version", "description", "defaults", "quick", "constraints", "bootstrap", "tasks", "excluded",
            ],
            required: ["suite", "version", "description", "defaults", "quick", "constraints", "bootstrap", "tasks"])
        guard try string("suite", root["suite"]) == SuiteDefinition.kind else {
            throw fail("suite", "expected \"\(SuiteDefinition.kind)\"")
        }
        let version = try string("version", root["version"])
        let defaults = try size(
            "defaults", try object("defaults", root["defaults"], keys: Self.sizeKeys, required: Self.sizeKeys),
            over: nil)
        let constraints = try self.constraints("constraints", root["constraints"])
        let bootstrap = try object(
            "bootstrap", root["bootstrap"], keys: ["resamples", "seed"], required: ["resamples", "seed"])
        let resamples = try integer("bootstrap.resamples", bootstrap["resamples"], in: 100...100_000)
        let bootSeed = try integer("bootstrap.seed", bootstrap["seed"], in: 0...Int(Int32.max))
        guard let taskArray = root["tasks"]?.array, !taskArray.isEmpty else {
            throw fail("tasks", "expected a non-empty array of tasks")
        }
        var tasks: [SuiteTask] = []
        for (i, element) in taskArray.enumerated() {
            let p = JSONPathText.index("tasks", i)
            let o = try object(
                p, element, keys: Self.sizeKeys.union(["id", "scenario", "set", "population", "constraints", "why"]),
                required: ["id", "scenario", "why"])
            let id = try string(JSONPathText.key(p, "id"), o["id"])
            guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), id.first?.isLetter == true else {
                throw fail(JSONPathText.key(p, "id"), "expected letters, digits and '-', starting with a letter")
            }
            guard !tasks.contains(where: { $0.id == id }) else {
                throw fail(JSONPathText.key(p, "id"), "task '\(id)' is defined twice")
            }
            var population = SuiteTask.Population.model
            if let value = o["population"] {
                let pp = JSONPathText.key(p, "population")
                if case .string("model") = value {
                } else if let habits = value.object, habits.keys == ["habits_seed"] {
                    population = .habits(
                        seed: UInt64(
                            try integer(
                                JSONPathText.key(pp, "habits_seed"), habits["habits_seed"], in: 0...Int(Int32.max))))
                } else {
                    throw fail(pp, "expected \"model\" or {\"habits_seed\": N}")
                }
            }
            tasks.append(
                SuiteTask(
                    id: id, scenario: try string(JSONPathText.key(p, "scenario"), o["scenario"]),
                    overrides: try o["set"].map { v throws(SuiteError) in try strings(JSONPathText.key(p, "set"), v) }
                        ?? [],
                    population: population, size: try size(p, o, over: defaults),
                    constraints: try o["constraints"].map { v throws(SuiteError) in
                        try self.constraints(JSONPathText.key(p, "constraints"), v)
                    } ?? constraints,
                    why: try string(JSONPathText.key(p, "why"), o["why"])))
        }
        let quickObject = try object(
            "quick", root["quick"], keys: Self.sizeKeys.union(["tasks"]), required: Self.sizeKeys.union(["tasks"]))
        let quickTasks = try strings("quick.tasks", quickObject["tasks"])
        for (i, id) in quickTasks.enumerated() where !tasks.contains(where: { $0.id == id }) {
            throw fail(JSONPathText.index("quick.tasks", i), "no task '\(id)' in the suite")
        }
        return SuiteDefinition(
            name: SuiteDefinition.kind, version: version, sha256: sha256,
            description: try string("description", root["description"]), tasks: tasks,
            quick: .init(tasks: quickTasks, size: try size("quick", quickObject, over: nil)),
            constraints: constraints, bootstrapResamples: resamples, bootstrapSeed: UInt64(bootSeed),
            excluded: try root["excluded"].map { v throws(SuiteError) in try strings("excluded", v) } ?? [])
    }
}
