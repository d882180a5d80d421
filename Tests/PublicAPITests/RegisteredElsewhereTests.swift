import BGBench
import Foundation
import Testing

// A policy registered elsewhere in the process (a package's, another suite's) changes no
// report of a run that does not use it (issue 29: two identical in-process frontiers
// failed `check --exact` when a suite registered a policy between them, as their run.json
// held every registered policy's parameters).

/// A parameter so that registering the policy adds a `policies.registered-later` section.
struct RegisteredLaterParameters: ParameterSet {
    var lead = TimeSpan.minutes(10)
    init() {}
    static var fields: [ParameterField<Self>] {
        [
            .duration(\.lead, "lead", in: .minutes(1)...(.hours(1)), "test policy: unused")
        ]
    }
}

/// Never asks (harmless wherever a suite runs every registered policy).
struct RegisteredLaterPolicy: WakePolicy {
    typealias Parameters = RegisteredLaterParameters
    static let name = "registered-later"
    static let summary = "test: never asks; registered between two writes of one report"
    init(_ context: PolicyContext) {}
    mutating func start(_ view: DeviceView) -> WakeDecision { .keep }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision { .keep }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision { .keep }
}

@Suite struct RegisteredElsewhereTests {
    /// Every file of a report folder, run.json without its `execution` (timing, threads).
    static func contents(_ folder: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
            var text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            if name == "run.json" {
                var object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                object["execution"] = nil
                text = String(
                    decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
            out[name] = text
        }
        return out
    }

    @Test func aPolicyRegisteredBetweenTwoWritesChangesNoFile() throws {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "none"],
            options: RunOptions(devices: 8, days: 2, seed: 9, threads: 1))
        let before = try Runner.run(request)
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("bgbench-registered-\(ProcessInfo.processInfo.processIdentifier)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try ReportWriter.write(before, to: base + "/one")
        #expect(PolicyRegistry.named(RegisteredLaterPolicy.name) == nil, "registered once, here")
        PolicyRegistry.register(RegisteredLaterPolicy.self)
        // The same report written again, and the same run made again, after the registration.
        try ReportWriter.write(before, to: base + "/two")
        try ReportWriter.write(try Runner.run(request), to: base + "/three")
        let one = try Self.contents(base + "/one")
        #expect(one["run.json"]?.contains("\"fixed\"") == true && one.count >= 5)
        #expect(try Self.contents(base + "/two") == one)
        #expect(try Self.contents(base + "/three") == one)
        // A run of the registered policy does hold its parameters.
        let mine = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: [RegisteredLaterPolicy.name],
            options: RunOptions(devices: 2, days: 1, seed: 9, threads: 1))
        try ReportWriter.write(try Runner.run(mine), to: base + "/mine")
        let run = try String(contentsOfFile: base + "/mine/run.json", encoding: .utf8)
        #expect(run.contains("\"\(RegisteredLaterPolicy.name)\" : {"))
    }
}
