// Interim until the loader branch merges: DELETE at merge.
public struct LoadedScenario: Sendable { public var scenario: Scenario; public var file: String?; public var sha256: String; public var resolvedJSON: String }
public struct ScenarioError: Error, CustomStringConvertible { public var description: String }
public enum ScenarioLoader {
  public static func load(file: String, overrides: [String] = []) throws -> LoadedScenario { throw ScenarioError(description: "error: interim") }
  public static func builtInDefault() -> LoadedScenario { LoadedScenario(scenario: Scenario(), file: nil, sha256: "", resolvedJSON: "") }
}
extension ScenarioError { public var firstLine: String { description }; public var isUsageError: Bool { false } }
extension ScenarioLoader { public static func load(json: String, file: String = "<string>", overrides: [String] = []) throws -> LoadedScenario { throw ScenarioError(description: "interim") } }
