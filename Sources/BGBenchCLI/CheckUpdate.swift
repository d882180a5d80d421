import BGBench
import BGHarness
import Foundation

extension Command {
    /// `--update`: replaces the baseline folder whole with the current run's report files
    /// (a folder of report folders: each run's subfolder; the baseline's other subfolders
    /// are kept), written into a staging folder and swapped into place (FolderTransaction).
    /// Refuses (65) to replace a baseline run by a run of another configuration (another
    /// resolved scenario, policies, fleet, days, warm-up, trace or schema; a seed is not a
    /// configuration, as for `check`) unless `acceptConfiguration` (`--accept-configuration`)
    /// says the change is meant.
    static func updateBaseline<Out: TextOutputStream>(
        _ baseline: String, from current: String, force: Bool,
        acceptConfiguration: Bool,
        output: inout Out
    ) throws {
        let runs = try readingReportFolders { try ReportFolder.locate(current, role: "current") }
        var target = baseline
        var isDirectory: ObjCBool = false
        let fm = FileManager.default
        if fm.fileExists(atPath: baseline, isDirectory: &isDirectory), !isDirectory.boolValue {
            target = (baseline as NSString).deletingLastPathComponent
        }
        let single = runs.first?.name == ""
        let hasRun = fm.fileExists(atPath: (target as NSString).appendingPathComponent("run.json"))
        if fm.fileExists(atPath: target), !single, hasRun {
            throw CLIError(
                message:
                    "baseline '\(target)' is a report folder but current '\(current)' is a folder of report folders",
                code: 65, hint: false)
        }
        var refused: [String] = []
        for run in runs {
            // a complete, readable folder
            let source = try readingReportFolders {
                let source = try ReportFolder(path: run.path, role: "current")
                try source.verifySummaryAgreesWithDevices()
                return source
            }
            let folder = run.name.isEmpty ? target : (target as NSString).appendingPathComponent(run.name)
            guard !acceptConfiguration, fm.fileExists(atPath: (folder as NSString).appendingPathComponent("run.json"))
            else { continue }
            let old = try readingReportFolders { try ReportFolder(path: folder, role: "baseline") }
            let found = RunComparison.mismatches(old, source, exact: false)
            if !found.isEmpty {
                refused.append(
                    "'\(run.path)' is another configuration than baseline '\(folder)': \(found.joined(separator: ", ")); "
                        + "add --accept-configuration to --update if the change is meant")
            }
        }
        guard refused.isEmpty else {
            throw CLIError(message: refused.joined(separator: "\nerror: "), code: 65, hint: false)
        }
        let transaction = try FolderTransaction(
            out: target, force: force, scope: .baselines,
            inputs: [.init(path: current, role: "--current")], option: "--baseline")
        if !single {
            // The baseline's runs the current folder does not have stay as they are.
            let kept = ((try? fm.contentsOfDirectory(atPath: target)) ?? []).sorted().filter { name in
                !name.hasPrefix(".") && !runs.contains { $0.name == name }
            }
            for name in kept {
                try transaction.copy(folder: (target as NSString).appendingPathComponent(name), to: name)
            }
        }
        var lines: [String] = []
        for run in runs {
            let folder = run.name.isEmpty ? target : (target as NSString).appendingPathComponent(run.name)
            var files: [(String, String)] = [], copied: [String] = [], removed: [String] = []
            // A sweep's manifest lists files beyond the report files (long.csv, scenario-K.json).
            let listed = try readingReportFolders { try ReportFolder(path: run.path, role: "current") }.files
            for name in listed + ReportFolder.reportFiles.filter({ !listed.contains($0) }) {
                let source = (run.path as NSString).appendingPathComponent(name)
                if fm.fileExists(atPath: source) {
                    guard let data = try? InputFile.read(source, limit: InputFile.Limit.report),
                        let text = String(validating: data, as: UTF8.self)
                    else {
                        throw CLIError(message: "cannot read '\(source)'", code: 66, hint: false)
                    }
                    files.append((run.name.isEmpty ? name : (run.name as NSString).appendingPathComponent(name), text))
                    copied.append(name)
                } else if fm.fileExists(atPath: (folder as NSString).appendingPathComponent(name)) {
                    removed.append(name)
                }
            }
            try transaction.write(files)
            lines.append(
                "updated baseline '\(folder)' from '\(run.path)': copied \(copied.joined(separator: ", "))"
                    + (removed.isEmpty ? "" : "; removed \(removed.joined(separator: ", "))") + "\n")
        }
        try transaction.commit()
        for line in lines { output.write(line) }
    }
}
