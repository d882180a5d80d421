import Foundation
import Testing
@testable import BGBench
import BGBenchTestSupport

/// Loads `json` as "s.json" and returns the error text, or nil when it loads.
private func errorText(_ json: String, overrides: [String] = []) -> String? {
    do {
        _ = try ScenarioLoader.load(json: json, file: "s.json", overrides: overrides)
        return nil
    } catch let error as ScenarioError {
        return error.description
    } catch {
        return "unexpected \(error)"
    }
}

@Suite struct ScenarioLoaderTests {
    /// Bad input → the exact error text, one line per problem.
    @Test(arguments: [
        // Unknown key with a suggestion, pointing at the key.
        (
            """
            {
              "platform": {
                "ios_bgtask": { "budget_scal": 3 }
              }
            }
            """, "error: s.json:3:21: platform.ios_bgtask.budget_scal: unknown key (did you mean 'budget_scale'?)"
        ),
        // Nested unknown keys, with and without a close match.
        (
            #"{"policies": {"adaptive": {"habit_halflife": "7d"}}}"#,
            "error: s.json:1:28: policies.adaptive.habit_halflife: unknown key (did you mean 'habit_half_life'?)"
        ),
        (#"{"device": {"battery": {"wh": 15}}}"#, "error: s.json:1:13: device.battery: unknown key"),
        // Unknown key inside an element of routine.opens.
        (
            """
            {
              "population": {
                "routine": {
                  "opens": [
                    { "at": "07:00" },
                    { "at": "12:00", "jiter_sd": "5m" }
                  ]
                }
              }
            }
            """, "error: s.json:6:26: population.routine.opens[1].jiter_sd: unknown key (did you mean 'jitter_sd'?)"
        ),
        // Unknown key inside a user-named archetype.
        (
            """
            {
              "population": {
                "archetypes": {
                  "r1": { "weight": 1, "median_opens": 5 }
                }
              }
            }
            """, "error: s.json:4:28: population.archetypes.r1.median_opens: unknown key"
        ),
        // Wrong types, at the value.
        (#"{"population": {"rate_sigma": "high"}}"#, "error: s.json:1:31: population.rate_sigma: expected a number"),
        (#"{"device": 3}"#, "error: s.json:1:12: device: expected an object"),
        (
            #"{"content": {"hourly_weights": {"a": 1}}}"#,
            "error: s.json:1:32: content.hourly_weights: expected an array"
        ),
        (
            #"{"platform": {"unrestricted": {"daily_cap": 1.5}}}"#,
            "error: s.json:1:45: platform.unrestricted.daily_cap: expected an integer"
        ),
        (#"{"user": {"sleep_enabled": "yes"}}"#, "error: s.json:1:28: user.sleep_enabled: expected true or false"),
        (#"{"name": null}"#, "error: s.json:1:10: name: expected a string"),
        ("[1]", "error: s.json:1:1: expected an object"),
        // Bad enum values.
        (
            #"{"population": {"model": "routines"}}"#,
            "error: s.json:1:26: population.model: expected one of: archetypes, routine"
        ),
        (#"{"app": {"status": 1}}"#, "error: s.json:1:20: app.status: expected one of: honest, always_new_data"),
        // Bad durations keep TimeSpan's message.
        (
            #"{"policies": {"fixed": {"interval": "15 min"}}}"#,
            #"error: s.json:1:37: policies.fixed.interval: expected a duration such as 90, "90s", "15m", "2h" or "1d""#
        ),
        // Out of range (validation), at the value.
        (
            """
            {
              "population": {
                "bar_off_share": 1.5
              }
            }
            """, "error: s.json:3:22: population.bar_off_share: 1.5 is out of range: expected a number from 0 to 1"
        ),
        (
            #"{"population": {"rate_sigma": -1}}"#,
            "error: s.json:1:31: population.rate_sigma: -1 is out of range: expected a number from 0 to 5"
        ),
        (
            #"{"content": {"hourly_weights": [1, 2]}}"#,
            "error: s.json:1:32: content.hourly_weights: expected 24 weights, got 2"
        ),
        // Headline metrics (report.headline): names of summary.csv's metrics, each once.
        (
            #"{"report": {"headline": ["fresh_open_rate", "server_lag"]}}"#,
            "error: s.json:1:45: report.headline[1]: unknown metric 'server_lag': expected a column of summary.csv (Reports/README.md)"
        ),
        (
            #"{"report": {"headline": ["fresh_open_rat"]}}"#,
            "error: s.json:1:26: report.headline[0]: unknown metric 'fresh_open_rat': expected a column of summary.csv (Reports/README.md) (did you mean 'fresh_open_rate'?)"
        ),
        (
            #"{"report": {"headline": []}}"#,
            "error: s.json:1:25: report.headline: an empty list: expected at least one metric of summary.csv"
        ),
        (
            #"{"report": {"headline": ["runs_per_day", "runs_per_day"]}}"#,
            "error: s.json:1:42: report.headline[1]: 'runs_per_day' is listed twice: expected each metric once"
        ),
        // Syntax errors and duplicate keys.
        ("{\n  \"name\": \"x\",\n}", "error: s.json:3:1: expected a string key, found '}'"),
        (#"{"name": "x" "description": "y"}"#, "error: s.json:1:14: expected ',' or '}', found '\"'"),
        ("{\"name\": \"caf\u{E9} \\q\"}", #"error: s.json:1:16: invalid escape '\q'"#),
        ("{\"name\": ", "error: s.json:1:10: unexpected end of file"),
        (
            "{\n  \"name\": \"a\",\n  \"name\": \"b\"\n}",
            "error: s.json:3:3: name: duplicate key (first at line 2, column 3; that value is kept)"
        ),
    ])
    func badInputReportsExactError(json: String, expected: String) {
        #expect(errorText(json) == expected)
    }

    @Test func unreadableFiles() {
        func errorText(file: String) -> String? {
            do { _ = try ScenarioLoader.load(file: file); return nil } catch { return "\(error)" }
        }
        #expect(
            errorText(file: "/nonexistent-dir/nope.json")
                == "error: cannot read scenario '/nonexistent-dir/nope.json': no such file")
        let dir = FileManager.default.temporaryDirectory.path
        #expect(errorText(file: dir) == "error: cannot read scenario '\(dir)': is a directory")
    }

    @Test(arguments: [
        (
            ["population.bar_of_share=0.2"],
            "error: --set population.bar_of_share: unknown key (did you mean 'bar_off_share'?)"
        ),
        (["population.rate_sigma=abc"], "error: --set population.rate_sigma: expected a number"),
        (["population.model"], "error: --set population.model: expected path=value, e.g. population.model=routine"),
        (
            ["population.routine.opens[3].at=06:00"],
            "error: --set population.routine.opens[3]: index out of range: the array has 3 elements"
        ),
    ])
    func badOverrideReportsExactError(overrides: [String], expected: String) {
        #expect(errorText("{}", overrides: overrides) == expected)
    }

    /// A problem the `--set` flags caused at a value of the file or the defaults (issue 25
    /// item 8): every archetype weight set to 0 leaves `population.archetypes` without a
    /// positive sum. It names the flags whose paths are in the problem's (exit 64 on the
    /// command line), not a line of the defaults; the same problem in the file stays there.
    @Test func problemsCausedByOverridesNameTheFlags() throws {
        let zero = ["heavy", "daily", "occasional", "rare"].map { "population.archetypes.\($0).weight=0" }
        let message = "population.archetypes: expected archetype weights with a positive sum"
        #expect(
            errorText(ScenarioLoader.builtInDefaultText(), overrides: ["population.rate_sigma=0.5"] + zero)
                == "error: " + zero.map { "--set " + $0 }.joined(separator: ", ") + ": " + message)
        // A file whose weights sum to zero: its line, whatever the flags do elsewhere.
        let json = #"{"population": {"archetypes": {"a": {"weight": 0}}}}"#
        #expect(errorText(json, overrides: ["population.rate_sigma=0.5"]) == "error: s.json:1:31: " + message)
        // A flag that breaks a rule tying two sections is named though its path is elsewhere.
        #expect(
            errorText(#"{"population": {"legacy_ios_share": 0.2}}"#, overrides: ["platform.name=android-workmanager"])
                == "error: --set platform.name=android-workmanager: population.legacy_ios_share: 0.2 needs platform ios-bgtask: the share of iOS 12 devices that use ios-fetch mixes into an ios-bgtask fleet (platform is android-workmanager); expected 0"
        )
        let run = bgbench(zero.flatMap { ["--set", $0] } + ["--days", "1", "--devices", "1", "--out", freshPath("w")])
        #expect(run.code == 64)
        #expect(
            run.errors
                == "error: " + zero.map { "--set " + $0 }.joined(separator: ", ") + ": " + message
                + "\nsee 'bgbench --help'\n")
    }

    /// Loading goes on after a problem: every unknown key, type error and range problem.
    @Test func collectsAllProblemsInFileOrder() {
        let json = """
            {
              "population": { "rate_sigma": "x", "bar_off_share": 2 },
              "nme": "a",
              "device": { "idle_w": true }
            }
            """
        #expect(
            errorText(json, overrides: ["app.sync=partial"]) == """
                error: --set app.sync: expected one of: delta, full
                error: s.json:2:33: population.rate_sigma: expected a number
                error: s.json:2:55: population.bar_off_share: 2 is out of range: expected a number from 0 to 1
                error: s.json:3:3: nme: unknown key (did you mean 'name'?)
                error: s.json:4:25: device.idle_w: expected a number
                """)
    }

    @Test func defaultsRoundTrip() throws {
        let loaded = try ScenarioLoader.load(json: ScenarioLoader.resolvedJSON(Scenario()))
        #expect(loaded.scenario == Scenario())
        #expect(loaded.resolvedJSON == ScenarioLoader.resolvedJSON(Scenario()))
    }

    @Test func changedScenarioRoundTrips() throws {
        var s = Scenario()
        s.name = "changed"
        s.population.model = .routine
        s.population.archetypes = [
            "night_owl": Archetype(weight: 1, medianOpensPerDay: 3, weekendLevel: 1.2),
            "R2": Archetype(weight: 2, medianOpensPerDay: 0.5),
        ]
        s.population.routine.opens = [.init(at: .hours(6), jitterSd: .seconds(90), probability: 0.5)]
        s.app.status = .alwaysNewData
        s.platform[Unrestricted.self].dailyCap = 12
        s.policies[FixedPolicy.self].interval = .minutes(45)
        s.app.launch = .seconds(0.25)
        let loaded = try ScenarioLoader.load(json: ScenarioLoader.resolvedJSON(s))
        #expect(loaded.scenario == s)
    }

    @Test func emptyObjectIsTheDefaults() throws {
        #expect(try ScenarioLoader.load(json: "{}").scenario == Scenario())
    }

    @Test func partialFileOverridesOnlyWhatItNames() throws {
        let json = #"{"population": {"rate_sigma": 0.5}, "platform": {"unrestricted": {"daily_cap": 12}}}"#
        var expected = Scenario()
        expected.population.rateSigma = 0.5
        expected.platform[Unrestricted.self].dailyCap = 12
        #expect(try ScenarioLoader.load(json: json).scenario == expected)
    }

    @Test func mapReplacesDefaultsAndFillsEntries() throws {
        let json = #"{"population": {"archetypes": {"r1": {"weight": 1, "median_opens_per_day": 3}}}}"#
        let archetypes = try ScenarioLoader.load(json: json).scenario.population.archetypes
        #expect(Array(archetypes.keys) == ["r1"])
        let r1 = try #require(archetypes["r1"])
        #expect(r1.weight == 1 && r1.medianOpensPerDay == 3)
        #expect(r1.weekdayWeights == newsOpenWeights && r1.weekendLevel == 0.9 && r1.weekendShift == .hours(1.5))
    }

    @Test func arrayOfRecordsReplacesDefaultsAndFillsElements() throws {
        let json = #"{"population": {"routine": {"opens": [{"at": "06:00"}, {"at": 64800, "probability": 0.5}]}}}"#
        let opens = try ScenarioLoader.load(json: json).scenario.population.routine.opens
        #expect(opens == [.init(at: .hours(6)), .init(at: .hours(18), probability: 0.5)])
    }

    @Test func overridesApply() throws {
        let overrides = [
            "platform.unrestricted.daily_cap=12", "policies.fixed.interval=30m", "population.model=routine",
            "population.archetypes.heavy.weight=0.3", "population.routine.opens[1].at=13:00",
            "name=2024", #"description="quoted""#, "population.rate_sigma=0.4",
        ]
        let json = #"{"population": {"rate_sigma": 0.6}}"#
        let s = try ScenarioLoader.load(json: json, overrides: overrides).scenario
        var expected = Scenario()
        expected.platform[Unrestricted.self].dailyCap = 12
        expected.policies[FixedPolicy.self].interval = .minutes(30)
        expected.population.model = .routine
        expected.population.archetypes["heavy"]!.weight = 0.3
        expected.population.routine.opens[1].at = .hours(13)
        expected.name = "2024"
        expected.description = "quoted"
        expected.population.rateSigma = 0.4
        #expect(s == expected)
    }

    @Test func fileLoadHashesTheFileBytes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-loader-\(UUID()).json")
        let text = #"{"name": "from file"}"#
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let loaded = try ScenarioLoader.load(file: url.path)
        #expect(loaded.file == url.path)
        #expect(loaded.scenario.name == "from file")
        #expect(loaded.sha256 == SHA256.hex(text.utf8))
    }

    @Test func builtInDefault() {
        let loaded = ScenarioLoader.builtInDefault()
        #expect(loaded.file == nil)
        #expect(loaded.scenario == Scenario())
        #expect(loaded.resolvedJSON.hasPrefix("{\n  \"app\" : {"))
        // Hashed as Datasets/scenarios/default.json, whatever other tests of this process
        // registered (resolvedJSON holds their parameters too).
        let file = TestSupport.packageRoot.appendingPathComponent("Datasets/scenarios/default.json")
        #expect(loaded.sha256 == SHA256.hex([UInt8]((try? Data(contentsOf: file)) ?? Data())))
        #expect(loaded.sha256 == SHA256.hex(ScenarioLoader.builtInDefaultText().utf8))
        #expect(Scenario().validate().isEmpty)
    }

    /// Every leaf of the defaults has a Swift type, so snakeCase agrees with JSONEncoder.
    @Test func schemaKnowsEveryLeaf() {
        func leaves(_ v: JSONValue, _ path: JSONPath) -> [String] {
            switch v {
            case .object(let o): o.members.flatMap { leaves($0.value, path.child($0.key)) }
            case .array(let a): a.prefix(1).flatMap { leaves($0, path.index(0)) }
            default: [path.schema]
            }
        }
        let paths = leaves(Schema.shared.defaults, .root)
        #expect(Set(paths) == Set(Schema.shared.leafTypes.keys))
        #expect(paths.contains("population.archetypes.*.weekend_shift"))
        #expect(paths.contains("population.routine.opens[].jitter_sd"))
    }

    /// Schema.snakeCase spells names as JSONEncoder's `.convertToSnakeCase` does: every
    /// Swift name of the defaults, and names that exercise each of its rules.
    @Test func snakeCaseAgreesWithTheEncoder() throws {
        struct Field: Encodable {
            let name: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encodeNil(forKey: AnyKey(stringValue: name))
            }
        }
        func encoded(_ name: String) throws -> String {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return try JSONParser.parse(String(decoding: try encoder.encode(Field(name: name)), as: UTF8.self)).root
                .object!.keys[0]
        }
        let names =
            Array(Schema.shared.swiftNames.values)
            + [
                "myURLValue", "URLValue", "ABc", "fooBAR", "nr5G", "aBc1D", "latencyMedianNr5g", "x", "",
                "already_snake", "ÉtéÀ",
            ]
        #expect(names.count > 200)
        for name in names { #expect(Schema.snakeCase(name) == (try encoded(name)), "\(name)") }
        #expect(Schema.snakeCase("latencyMedianNr5g") == "latency_median_nr5g")
        #expect(Schema.snakeCase("myURLValue") == "my_url_value")
    }

    /// JSONDecoder's errors get a JSON path (map keys verbatim) and a plain message.
    @Test func decodingErrorsGetPathAndMessage() throws {
        func decodeError(_ edit: (inout JSONObject) -> Void) throws -> String {
            var root = try #require(Schema.shared.defaults.object)
            edit(&root)
            var resolver = Resolver(file: "s.json", document: JSONDocument(root: .object([:])))
            #expect(resolver.decode(.object(root)) == nil)
            return resolver.problems.map(\.description).joined(separator: "\n")
        }
        func setting(_ keys: [String], _ value: JSONValue) -> (inout JSONObject) -> Void {
            { root in
                func set(_ o: JSONObject, _ keys: ArraySlice<String>) -> JSONObject {
                    var o = o
                    o[keys.first!] =
                        keys.count == 1 ? value : .object(set(o[keys.first!]?.object ?? JSONObject(), keys.dropFirst()))
                    return o
                }
                root = set(root, keys[...])
            }
        }
        #expect(
            try decodeError(setting(["population", "model"], .string("zzz")))
                == "error: s.json: population.model: expected one of: archetypes, routine")
        #expect(
            try decodeError(setting(["population", "archetypes", "Night_Owl"], .object(["weight": .string("x")])))
                == "error: s.json: population.archetypes.Night_Owl.weight: expected a number")
        #expect(
            try decodeError(setting(["population", "routine", "opens"], .array([.object(["at": .bool(true)])])))
                == #"error: s.json: population.routine.opens[0].at: expected a duration such as 90, "90s", "15m", "2h" or "1d""#
        )
    }

    @Test func suggestions() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(
            Resolver.suggestion(for: "budget_scal", among: ["budget_cap", "budget_scale"])
                == " (did you mean 'budget_scale'?)")
        #expect(Resolver.suggestion(for: "zzz", among: ["budget_cap"]) == "")
    }
}

@Suite struct JSONParserTests {
    @Test func parsesValuesAndPositions() throws {
        let doc = try JSONParser.parse(
            "{\n  \"é\": [1, -0.5e+2, true, null],\n  \"s\": \"a\\\"\\u00e9\\ud83d\\ude00\\n\"\n}")
        let root = try #require(doc.root.object)
        #expect(root.keys == ["é", "s"])
        #expect(root["é"] == .array([.number(1, text: "1"), .number(-50, text: "-0.5e+2"), .bool(true), .null]))
        #expect(root["s"] == .string("a\"é😀\n"))
        #expect(doc.keyPositions["é"] == SourcePosition(line: 2, column: 3))
        #expect(doc.valuePositions["é"] == SourcePosition(line: 2, column: 8))
        #expect(doc.valuePositions["é[3]"] == SourcePosition(line: 2, column: 27))
        #expect(doc.valuePositions["s"] == SourcePosition(line: 3, column: 8))
    }

    @Test func serialisesBack() throws {
        let text = #"{"b":[1,2.50,{"x":null}],"a":"q\"\\\n\u0001é"}"#
        #expect(try JSONParser.parse(text).root.text == text)
        #expect(try JSONParser.parse(JSONParser.parse(text).root.text).root == JSONParser.parse(text).root)
    }

    @Test(arguments: ["0", "-0", "1.5", "1e5", "1E+2", "-12.5e-3", "123456789012345678901234567890"])
    func validNumbers(text: String) throws {
        #expect(try JSONParser.parse(text).root == .number(Double(text)!, text: text))
    }

    @Test(arguments: [
        ("-", "1:1: invalid number"), ("1.", "1:1: invalid number"), (".5", "1:1: expected a value, found '.'"),
        ("1e", "1:1: invalid number"), ("+1", "1:1: expected a value, found '+'"),
        ("01", "1:2: unexpected text after the JSON value"),
        ("\"\\ud800\"", "1:2: unpaired surrogate in \\u escape"),
        ("\"\\udc00\"", "1:2: unpaired surrogate in \\u escape"),
        ("\"\\u12g4\"", "1:2: invalid \\u escape (expected 4 hex digits)"),
        ("\"a\tb\"", "1:3: control character U+0009 in a string (escape it)"),
        ("\"abc", "1:5: unexpected end of file"), ("[1,]", "1:4: expected a value, found ']'"),
        ("[1 2]", "1:4: expected ',' or ']', found '2'"),
        ("tru", "1:1: expected a value, found 't'"), ("", "1:1: unexpected end of file"),
        ("{\"a\" 1}", "1:6: expected ':' after the key, found '1'"),
        (String(repeating: "[", count: 600), "1:513: nested deeper than 512 levels"),
    ])
    func syntaxErrors(text: String, expected: String) {
        do {
            _ = try JSONParser.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect("\(error.position.line):\(error.position.column): \(error.message)" == expected)
        }
    }
}

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func standardVectors(message: String, digest: String) {
        #expect(SHA256.hex(message.utf8) == digest)
    }
}
