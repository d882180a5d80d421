import BGBench
import Foundation

/// The files bgbench needs besides its code: the scenario presets
/// (Datasets/scenarios/*.json) and Reports/plot.py, built into the binary as string
/// literals (EmbeddedFiles.swift, written by Scripts/make-embedded.py; ResourcesTests fails
/// when that copy is stale against the files).
///
/// Why built in rather than SwiftPM resources: a resource bundle is a separate folder that
/// `Bundle.module` looks for beside the executable at the path of the build, so an
/// installed binary copied elsewhere (`install.sh`, `install -D`) would fail at run time
/// unless the installer also copied the bundle to the right place; on Linux the lookup is
/// by absolute build path and then beside the executable. A copy in the binary has no
/// install-time failure mode: one file to install, found wherever it runs. The cost is a
/// generated source file of about 60 kB that must be regenerated after a preset changes,
/// which the test enforces.
enum EmbeddedFiles {
    /// The preset whose file (Datasets/scenarios/default.json) is the built-in defaults'
    /// text: taken from them, not carried twice, and encoded only when asked for (encoding
    /// the defaults is most of a small run's start-up).
    static let defaultPreset = "default"

    /// Every preset's name, sorted.
    static let presetNames = (embeddedPresets.map(\.name) + [defaultPreset]).sorted()

    /// Every preset by name, sorted, with its text.
    static var presets: [(name: String, text: String)] { presetNames.map { ($0, preset(named: $0)!) } }

    /// The preset called `name` (with or without `.json`), nil when there is none.
    static func preset(named name: String) -> String? {
        let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        if stem == defaultPreset { return ScenarioLoader.builtInDefaultText() }
        return embeddedPresets.first { $0.name == stem }?.text
    }

    /// Every preset's name and description (its scenario's `description`), sorted by name.
    static func presetDescriptions() -> [(name: String, description: String)] {
        presets.map { preset in
            let loaded = try? ScenarioLoader.load(json: preset.text, file: "preset:\(preset.name)")
            return (preset.name, loaded?.scenario.description ?? "(does not load: run it to see why)")
        }
    }

    /// `--scenario VALUE`: a file when one exists at that path (a path wins over a preset's
    /// name), else the preset of that name, recorded as `preset:NAME` in run.json's
    /// `scenario_file`. A value that names neither is a missing file when it looks like a
    /// path (it has a `/`), else an unknown preset with the list of presets.
    static func loadScenario(_ value: String, overrides: [String]) throws -> LoadedScenario {
        if FileManager.default.fileExists(atPath: value) || value.contains("/") {
            return try ScenarioLoader.load(file: value, overrides: overrides)
        }
        guard let text = preset(named: value) else {
            let names = presetNames
            var message =
                "no scenario file or preset '\(value)' for '--scenario': expected a scenario JSON file or one of the presets \(names.joined(separator: ", "))"
            if let close = closest(to: value, in: names) { message += " (did you mean '\(close)'?)" }
            throw CLIError(message: message, code: 66, hint: false)
        }
        let stem = value.hasSuffix(".json") ? String(value.dropLast(5)) : value
        return try ScenarioLoader.load(json: text, file: "preset:\(stem)", overrides: overrides)
    }

    /// Writes plot.py to a new temporary folder and returns the script's path; the caller
    /// removes the folder.
    static func writePlotScript() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-plot-\(UUID().uuidString)")
        let script = folder.appendingPathComponent("plot.py")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(plotScript.utf8).write(to: script)
        } catch {
            throw CLIError.cannotCreate("cannot write plot.py to '\(folder.path)': \(error.localizedDescription)")
        }
        return script
    }
}
