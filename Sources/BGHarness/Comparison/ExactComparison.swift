import BGBench
import Foundation

/// `bgbench check --exact`: two report folders of one configuration and seed, file by file.
extension RunComparison {
    /// The top-level keys of run.json that `--exact` leaves out: how the run went
    /// (`execution`: timing, workers, command line) and which build made it (`git_commit`,
    /// `bgbench_version`, and the `gsl` library's version), which differ between the
    /// baseline's build and the one under test by design. bgbench is deterministic, so
    /// every other file and field settles whether the results moved.
    /// The `manifest` (sizes and hashes of the other files) is left out too: every file it
    /// describes is compared itself.
    public static let exactIgnoredKeys: Set<String> = ["execution", "git_commit", "bgbench_version", "gsl", "manifest"]

    /// Every report file (``ReportFolder/reportFiles``, and the other files a manifest lists:
    /// a sweep's) that either folder holds must be in both, byte for byte; run.json field for field but ``exactIgnoredKeys``. A file only
    /// one folder has is a difference. One line per differing file, naming its first
    /// difference: for a CSV file the row and column (or, when the fields are the same,
    /// the first differing byte), for scenario.json the line.
    /// Returns the differences and the files compared (those either folder has).
    public static func exactDifferences(baseline: ReportFolder, current: ReportFolder) throws(ReportFolderError)
        -> (differences: [(file: String, message: String)], compared: [String])
    {
        var differences: [(file: String, message: String)] = [], compared: [String] = []
        // A sweep's manifest lists more files (long.csv, scenario-K.json): after the
        // report files, by name, and run.json last.
        let known = Array(ReportFolder.reportFiles.dropLast())
        let extra = Set(baseline.files + current.files).subtracting(ReportFolder.reportFiles).sorted()
        for name in known + extra + ["run.json"] {
            let inBaseline = baseline.has(name), inCurrent = current.has(name)
            guard inBaseline || inCurrent else { continue }
            compared.append(name)
            let path = current.file(name)
            guard inCurrent else {
                differences.append((name, "'\(path)' is missing: the baseline has \(name)"))
                continue
            }
            guard inBaseline else {
                differences.append((name, "'\(path)' is not in the baseline: '\(baseline.path)' has no \(name)"))
                continue
            }
            if name == "run.json" {
                if let field = ReportFolder.firstRunJSONDifference(baseline, current, ignoring: exactIgnoredKeys) {
                    differences.append(
                        (
                            name,
                            "'\(path)' differs from the baseline at \(field.path): baseline \(field.baseline), current \(field.current)"
                        ))
                }
                continue
            }
            let baselineBytes = try ReportFolder.bytes(baseline.file(name)), currentBytes = try ReportFolder.bytes(path)
            if baselineBytes == currentBytes { continue }
            if name.hasSuffix(".csv"),
                let place = firstDifference(try baseline.table(name)!, try current.table(name)!)
            {
                differences.append((name, "'\(path)' differs from the baseline \(place)"))
            } else {
                differences.append(
                    (name, "'\(path)' differs from the baseline \(firstDifference(bytes: baselineBytes, currentBytes))")
                )
            }
        }
        return (differences, compared)
    }

    /// "at line L: baseline 'text', current 'text'" (the lines without their indentation),
    /// or the length difference, for two texts that differ.
    static func firstDifference(bytes b: [UInt8], _ c: [UInt8]) -> String {
        func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
            bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        }
        let bl = lines(b), cl = lines(c)
        for (i, (x, y)) in zip(bl, cl).enumerated() where x != y {
            func shown(_ line: ArraySlice<UInt8>) -> String {
                "'" + String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) + "'"
            }
            if shown(x) == shown(y) {
                let j = zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(x.count, y.count)
                return "at line \(i + 1), byte \(j + 1): the same text, written with other spaces or line ends"
            }
            return "at line \(i + 1): baseline \(shown(x)), current \(shown(y))"
        }
        return "in length: \(b.count) bytes in the baseline, \(c.count) in the current"
    }

    /// The columns that name a row, when a table has them.
    static let identityColumns = [
        "policy", "baseline", "metric", "archetype", "device", "day", "hour", "minute", "time_s", "event",
    ]

    /// "at line L (policy p, archetype a), column c: baseline x, current y", or the header
    /// or length difference; nil when the tables are equal.
    static func firstDifference(_ b: CSVTable, _ c: CSVTable) -> String? {
        if b.header != c.header {
            let i = b.header.indices.first { $0 >= c.header.count || b.header[$0] != c.header[$0] } ?? b.header.count
            func name(_ t: CSVTable) -> String { i < t.header.count ? "'\(t.header[i])'" : "none" }
            return "in its header: column \(i + 1) is \(name(b)) in the baseline, \(name(c)) in the current"
        }
        for (r, (x, y)) in zip(b.rows, c.rows).enumerated() where x != y {
            let j = x.indices.first { x[$0] != y[$0] }!
            // Empty ones left out (replications.csv's baseline in the baseline's own rows).
            let names = identityColumns.compactMap { col in
                b.index(of: col).flatMap { x[$0].isEmpty ? nil : "\(col) \(x[$0])" }
            }
            let place = names.isEmpty ? "" : " (\(names.joined(separator: ", ")))"
            func shown(_ s: String) -> String { s.isEmpty ? "(empty)" : s }
            return
                "at line \(c.lines[r])\(place), column \(b.header[j]): baseline \(shown(x[j])), current \(shown(y[j]))"
        }
        if b.rows.count != c.rows.count {
            return "in length: \(b.rows.count) rows after the header in the baseline, \(c.rows.count) in the current"
        }
        return nil  // the same fields: the bytes differ in how they are written
    }
}
