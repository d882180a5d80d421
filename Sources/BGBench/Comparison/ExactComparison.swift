import Foundation

/// `bgbench check --exact`: two report folders of one configuration and seed, file by file.
extension RunComparison {
    /// The top-level keys of run.json that `--exact` leaves out: how the run went
    /// (`execution`) and which build and library made it. bgbench is deterministic, so the
    /// CSV files settle whether the numbers moved.
    public static let exactIgnoredKeys: Set<String> = ["execution", "git_commit", "bgbench_version", "gsl"]

    /// Every CSV the baseline holds (summary.csv, then devices, daily, hourly, paired) must
    /// be in the current folder, field for field; then run.json without
    /// ``exactIgnoredKeys``. One line per differing file, naming its first difference.
    /// Returns the differences and the files compared.
    public static func exactDifferences(baseline: ReportFolder, current: ReportFolder) throws(ReportFolderError)
        -> (differences: [(file: String, message: String)], compared: [String]) {
        var differences: [(file: String, message: String)] = [], compared: [String] = []
        for name in ["summary.csv"] + ReportFolder.optionalTables where baseline.has(name) {
            compared.append(name)
            let path = current.file(name)
            guard current.has(name) else {
                differences.append((name, "'\(path)' is missing: the baseline has \(name)"))
                continue
            }
            if FileManager.default.contents(atPath: baseline.file(name)) == FileManager.default.contents(atPath: path) { continue }
            let b = try baseline.table(name)!, c = try current.table(name)!
            if let d = firstDifference(b, c) { differences.append((name, "'\(path)' differs from the baseline \(d)")) }
        }
        compared.append("run.json")
        if let d = ReportFolder.firstRunJSONDifference(baseline, current, ignoring: exactIgnoredKeys) {
            differences.append(("run.json", "'\(current.file("run.json"))' differs from the baseline at \(d.path): baseline \(d.baseline), current \(d.current)"))
        }
        return (differences, compared)
    }

    /// The columns that name a row, when a table has them.
    static let identityColumns = ["policy", "baseline", "metric", "archetype", "device", "day", "hour"]

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
            let names = identityColumns.compactMap { col in b.index(of: col).map { "\(col) \(x[$0])" } }
            let place = names.isEmpty ? "" : " (\(names.joined(separator: ", ")))"
            func shown(_ s: String) -> String { s.isEmpty ? "(empty)" : s }
            return "at line \(c.lines[r])\(place), column \(b.header[j]): baseline \(shown(x[j])), current \(shown(y[j]))"
        }
        if b.rows.count != c.rows.count {
            return "in length: \(b.rows.count) rows after the header in the baseline, \(c.rows.count) in the current"
        }
        return nil
    }
}
