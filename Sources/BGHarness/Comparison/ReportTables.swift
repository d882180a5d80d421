import BGBench
import BGNumerics
import Foundation

/// summary.csv's rows by (policy, archetype), one per seed (a replicated run has a row for
/// each of its seeds), with the metric columns in file order.
struct SummaryRows {
    struct Key: Hashable { var policy: String; var archetype: String }
    struct Row { var scenario: String; var seed: String; var devices: Int; var fields: [String] }
    let path: String
    let header: [String: Int]
    var keys: [Key] = []
    /// Each key's rows in seed order (the file's).
    var rows: [Key: [Row]] = [:]
    /// The seeds, in file order.
    var seeds: [String] = []
    /// Metric columns: not identity columns, not interval bounds.
    let metricColumns: [String]

    init(_ folder: ReportFolder) throws(ReportFolderError) {
        let t = folder.summary
        path = folder.file("summary.csv")
        var header: [String: Int] = [:]
        for (i, name) in t.header.enumerated() { header[name] = i }
        self.header = header
        for column in ["scenario", "policy", "archetype", "seed", "devices"] where header[column] == nil {
            throw .invalid("'\(path)' has no column \(column)")
        }
        metricColumns = t.header.filter {
            !SummarySchema.identity.contains($0) && !$0.hasSuffix("_ci_low") && !$0.hasSuffix("_ci_high")
                && !$0.hasSuffix("_unstable")
        }
        for (row, line) in zip(t.rows, t.lines) {
            let key = Key(policy: row[header["policy"]!], archetype: row[header["archetype"]!])
            let seed = row[header["seed"]!]
            guard let devices = Int(row[header["devices"]!]) else {
                throw .invalid("'\(path)' line \(line): devices is not an integer")
            }
            if rows[key]?.contains(where: { $0.seed == seed }) == true {
                throw .invalid(
                    "'\(path)' line \(line): a second row for policy \(key.policy), archetype \(key.archetype), seed \(seed)"
                )
            }
            if rows[key] == nil { keys.append(key) }
            if !seeds.contains(seed) { seeds.append(seed) }
            rows[key, default: []].append(
                Row(scenario: row[header["scenario"]!], seed: seed, devices: devices, fields: row))
        }
        for key in keys where rows[key]!.map(\.seed) != seeds {
            throw .invalid(
                "'\(path)': policy \(key.policy), archetype \(key.archetype) has rows for seeds "
                    + "\(rows[key]!.map(\.seed).joined(separator: ",")), expected one for each of \(seeds.joined(separator: ","))"
            )
        }
    }

    /// Each of these rows (all seeds) with `current`'s rows of the same policy and archetype,
    /// in this table's order (check's and --ab's comparison); a row `current` lacks is an error.
    func matched(with current: SummaryRows) throws(ReportFolderError) -> [(
        key: Key, baseline: [Row], current: [Row]
    )] {
        var out: [(key: Key, baseline: [Row], current: [Row])] = []
        for key in keys {
            guard let rows = current.rows[key] else {
                throw .invalid(
                    "'\(current.path)' has no row for policy \(key.policy), archetype \(key.archetype), which the baseline has"
                )
            }
            out.append((key, self.rows[key]!, rows))
        }
        return out
    }

    /// A metric's values over the seeds' rows; nil when any seed lacks it.
    func values(_ rows: [Row], _ column: String) throws(ReportFolderError) -> [Double]? {
        var out: [Double] = []
        for row in rows {
            guard let v = try number(row, column) else { return nil }
            out.append(v)
        }
        return out
    }

    func number(_ row: Row, _ column: String) throws(ReportFolderError) -> Double? {
        guard let i = header[column] else { return nil }
        let text = row.fields[i]
        if text.isEmpty { return nil }
        guard let value = Double(text) else {
            throw .invalid("'\(path)': '\(text)' in column \(column) is not a number")
        }
        return value
    }

    func value(_ row: Row, _ column: String) throws(ReportFolderError) -> Double? { try number(row, column) }

    /// SE = interval half-width / t(0.975, n − 1), with n − 1 degrees of freedom (the
    /// interval's own, Reports/README.md), or nil without an interval.
    func standardError(_ row: Row, _ column: String) throws(ReportFolderError) -> (se: Double, dof: Double)? {
        guard row.devices >= 2, let low = try number(row, column + "_ci_low"),
            let high = try number(row, column + "_ci_high")
        else { return nil }
        let dof = Double(row.devices - 1)
        return ((high - low) / 2 / Distribution.studentTQuantile(0.975, degreesOfFreedom: dof), dof)
    }
}

/// devices.csv by policy, rows in device order, columns parsed on demand and kept (a
/// check asks for each column once per archetype row).
final class DeviceTable {
    let table: CSVTable
    let path: String
    let deviceColumn: Int, archetypeColumn: Int
    private var rowsByPolicy: [String: [Int]] = [:]
    private var parsed: [String: [Double]] = [:]

    init(_ table: CSVTable, path: String) throws(ReportFolderError) {
        self.table = table
        self.path = path
        guard let p = table.index(of: "policy"), let d = table.index(of: "device"), let a = table.index(of: "archetype")
        else {
            throw .invalid("'\(path)' lacks the policy, device or archetype column")
        }
        (deviceColumn, archetypeColumn) = (d, a)
        var byPolicy: [String: [(Int, Int)]] = [:]
        for (i, row) in table.rows.enumerated() {
            guard let device = Int(row[d]) else {
                throw .invalid("'\(path)' line \(table.lines[i]): device is not an integer")
            }
            byPolicy[row[p], default: []].append((device, i))
        }
        rowsByPolicy = byPolicy.mapValues { $0.sorted { $0.0 < $1.0 }.map { $0.1 } }
    }

    /// The row indices of a policy, by device.
    func rows(policy: String) -> [Int] { rowsByPolicy[policy] ?? [] }

    func deviceIDs(policy: String) -> [String] { rows(policy: policy).map { table.rows[$0][deviceColumn] } }

    func archetype(_ row: Int) -> String { table.rows[row][archetypeColumn] }

    /// A column's values over a policy's rows, in device order.
    func values(_ column: String, policy: String) throws(ReportFolderError) -> [Double] {
        let key = policy + "\u{0}" + column
        if let done = parsed[key] { return done }
        guard let j = table.index(of: column) else { throw .invalid("'\(path)' has no column \(column)") }
        var out: [Double] = []
        let rows = rows(policy: policy)
        out.reserveCapacity(rows.count)
        for r in rows {
            guard let v = Double(table.rows[r][j]) else {
                throw .invalid(
                    "'\(path)' line \(table.lines[r]), column \(column): '\(table.rows[r][j])' is not a number")
            }
            out.append(v)
        }
        parsed[key] = out
        return out
    }
}
