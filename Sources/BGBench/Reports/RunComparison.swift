import BGNumerics
import Foundation

/// Which way a metric of summary.csv gets worse.
public enum MetricDirection: String, Sendable {
    /// Down is bad (a fall beyond tolerance is a regression).
    case higherIsBetter
    /// Up is bad.
    case lowerIsBetter
    /// Neither way is bad: the change is reported, never a regression.
    case neutral
}

/// One metric of summary.csv as `bgbench check` sees it: which way is bad, its default
/// tolerance, and where its per-device values are in devices.csv.
public struct CheckMetric: Sendable {
    /// How the metric is computed from devices.csv, for the statistical tests.
    public enum Source: Sendable, Equatable {
        /// Σ column / Σ opens over the devices (a ratio of totals).
        case perOpen(String)
        /// The mean of the column over the devices (per device-day: divided by the counted
        /// days, the same for both runs, so the tests need not divide).
        case perDevice(String)
        /// A quantile of the staleness histogram: no per-device values and no interval,
        /// so no test.
        case quantile
    }

    public let name: String
    public let direction: MetricDirection
    /// A change smaller than this, in percent of the baseline value, is no change.
    public let tolerancePercent: Double
    public let source: Source
}

/// The direction table: every metric of summary.csv, which way is bad, and its default
/// tolerance, derived from ``MetricTable``.
public enum CheckMetrics {
    public static let table: [CheckMetric] = MetricTable.metrics.map { m in
        let source: CheckMetric.Source = switch m.kind {
        case .stalenessQuantile: .quantile
        case .perOpen(let q): .perOpen(q.label)
        // Per device-day, per server job, the battery share (the scale cancels in the
        // tests), a share of resolved tasks (the tests use its count per device).
        case .perDeviceDay(let q), .batteryPercentPerDay(let q), .perServerJob(let q), .share(let q, _): .perDevice(q.label)
        }
        return CheckMetric(name: m.name, direction: m.direction, tolerancePercent: m.tolerancePercent, source: source)
    }

    public static func named(_ name: String) -> CheckMetric? { table.first { $0.name == name } }
}

/// What `check` concludes about one metric of one summary row.
public enum Verdict: String, Sendable, CaseIterable {
    /// Worse beyond tolerance and significant.
    case regression
    /// Better beyond tolerance and significant.
    case improvement
    /// Within tolerance, or beyond it but not significant.
    case unchanged
    /// A metric with no bad direction.
    case neutral
    /// Beyond tolerance with no test: a quantile, or a value only one run has.
    case untested
}

/// The test that gave a comparison its p-value.
public enum ComparisonTest: String, Sendable {
    /// Same seed, scenario and fleet: device by device on devices.csv.
    case paired = "paired t"
    /// Different seeds, standard errors from summary.csv's interval half-widths.
    case welchSummary = "Welch t (summary.csv intervals)"
    /// Different seeds, a metric without an interval: standard errors from devices.csv.
    case welchDevices = "Welch t (devices.csv)"
}

/// One metric of one summary row (scenario × policy × archetype), baseline against current.
public struct MetricComparison: Sendable {
    public var scenario: String
    public var policy: String
    public var archetype: String
    public var metric: String
    public var direction: MetricDirection
    public var baseline: Double?
    public var current: Double?
    public var tolerancePercent: Double
    public var test: ComparisonTest?
    /// Two-sided p-value of "no change"; nil without a test.
    public var pValue: Double?
    /// Set by ``RunComparison/decide(_:alpha:)``.
    public var significant = false
    public var verdict: Verdict = .unchanged

    /// (current − baseline) / |baseline| in percent: 0 when both are 0, ±∞ from 0; nil
    /// when either is missing.
    public var changePercent: Double? {
        guard let b = baseline, let c = current else { return nil }
        if c == b { return 0 }
        if b == 0 { return c > 0 ? .infinity : -.infinity }
        return (c - b) / abs(b) * 100
    }

    /// Moved by more than the tolerance (a value only one run has counts as moved).
    public var beyondTolerance: Bool {
        if baseline == nil && current == nil { return false }
        guard let change = changePercent else { return true }
        return abs(change) > tolerancePercent
    }

    /// The change goes the bad way (false for neutral metrics).
    public var worse: Bool {
        guard let b = baseline, let c = current else { return false }
        switch direction {
        case .higherIsBetter: return c < b
        case .lowerIsBetter: return c > b
        case .neutral: return false
        }
    }

    /// Can be a regression or an improvement: has a direction and a test.
    var inFamily: Bool { direction != .neutral && pValue != nil && baseline != nil && current != nil }
}

/// Compares two report folders of one configuration (Reports/README.md): the statistics of
/// `bgbench check`, and its exact mode.
public enum RunComparison {
    // MARK: Which runs may be compared

    /// Why two folders are not two runs of one configuration, as "field baseline vs
    /// current" phrases; empty when they are. `exact` also needs the same seed.
    public static func mismatches(_ b: RunFolder, _ c: RunFolder, exact: Bool) -> [String] {
        var out: [String] = []
        if b.schemaVersion != c.schemaVersion { out.append("schema_version \(b.schemaVersion) vs \(c.schemaVersion)") }
        if b.resolvedScenarioSha256 != c.resolvedScenarioSha256 {
            out.append("resolved_scenario_sha256 \(b.resolvedScenarioSha256.prefix(12)) vs \(c.resolvedScenarioSha256.prefix(12))")
        }
        if b.policies != c.policies {
            out.append("policies \(b.policies.joined(separator: ",")) vs \(c.policies.joined(separator: ","))")
        }
        if b.opensTraceSha256 != c.opensTraceSha256 {
            func shown(_ sha: String?) -> String { sha.map { String($0.prefix(12)) } ?? "(none)" }
            out.append("opens_trace sha256 \(shown(b.opensTraceSha256)) vs \(shown(c.opensTraceSha256))")
        }
        if b.devices != c.devices { out.append("devices \(b.devices) vs \(c.devices)") }
        if b.days != c.days { out.append("days \(b.days) vs \(c.days)") }
        if b.warmupDays != c.warmupDays { out.append("warmup_days \(b.warmupDays) vs \(c.warmupDays)") }
        if exact && b.seed != c.seed { out.append("seed \(b.seed) vs \(c.seed)") }
        return out
    }

    /// The test `compare` applies: paired when both runs have the same seed (then they met
    /// the same users and the same feed, device by device), Welch otherwise.
    public static func pairs(_ b: RunFolder, _ c: RunFolder) -> Bool { b.seed == c.seed }

    // MARK: Statistics

    /// Every metric of every summary row of the baseline, with its p-value (before
    /// ``decide(_:alpha:)``). The folders must have passed ``mismatches(_:_:exact:)``.
    /// Same seed: paired t-tests on devices.csv, which both folders must have. Different
    /// seeds: Welch t-tests, standard errors from summary.csv's intervals, or from
    /// devices.csv for a metric without an interval when both folders have it.
    public static func compare(baseline: RunFolder, current: RunFolder, role: (String, String) = ("baseline", "current"),
                               tolerances: [String: Double] = [:]) throws(RunFolderError) -> [MetricComparison] {
        let paired = pairs(baseline, current)
        var deviceTables: (DeviceTable, DeviceTable)?
        if paired {
            for (folder, name) in [(baseline, role.0), (current, role.1)] where !folder.has("devices.csv") {
                throw .missing("\(name) '\(folder.path)' has no devices.csv: runs with the same seed are compared device by device; make both with --per-device")
            }
        }
        if let b = try baseline.table("devices.csv"), let c = try current.table("devices.csv") {
            deviceTables = (try DeviceTable(b, path: baseline.file("devices.csv")),
                            try DeviceTable(c, path: current.file("devices.csv")))
        }
        let bs = try SummaryRows(baseline), cs = try SummaryRows(current)
        var out: [MetricComparison] = []
        for key in bs.keys {
            guard let cRow = cs.rows[key] else {
                throw .invalid("'\(current.file("summary.csv"))' has no row for policy \(key.policy), archetype \(key.archetype), which the baseline has")
            }
            let bRow = bs.rows[key]!
            for name in bs.metricColumns {
                let metric = CheckMetrics.named(name)
                var m = MetricComparison(
                    scenario: bRow.scenario, policy: key.policy, archetype: key.archetype, metric: name,
                    direction: metric?.direction ?? .neutral,
                    baseline: try bs.value(bRow, name), current: try cs.value(cRow, name),
                    tolerancePercent: tolerances[name] ?? metric?.tolerancePercent ?? 1)
                if let metric, m.baseline != nil, m.current != nil {
                    if paired, let tables = deviceTables {
                        let (db, dc) = tables
                        m.pValue = try pairedP(db, dc, policy: key.policy, archetype: key.archetype, source: metric.source)
                        if m.pValue != nil { m.test = .paired }
                    } else if !paired {
                        if let se = try bs.standardError(bRow, name), let sc = try cs.standardError(cRow, name) {
                            m.pValue = welchP(difference: m.current! - m.baseline!, se, sc)
                            m.test = .welchSummary
                        } else if let tables = deviceTables,
                                  let p = try welchDevicesP(tables.0, tables.1, policy: key.policy, archetype: key.archetype, source: metric.source) {
                            m.pValue = p
                            m.test = .welchDevices
                        }
                    }
                }
                out.append(m)
            }
        }
        return out
    }

    /// Sets `significant` and `verdict` for a whole family of comparisons (every run
    /// compared in one check). Significance is Holm's step-down Bonferroni at family-wise
    /// level `alpha` over the comparisons that can be a regression or an improvement
    /// (a direction, both values, a p-value): hundreds of metrics are tested at once, and a
    /// CI gate must not cry wolf on one of them by chance. Returns the family's size.
    @discardableResult
    public static func decide(_ comparisons: inout [MetricComparison], alpha: Double = 0.05) -> Int {
        let family = comparisons.indices.filter { comparisons[$0].inFamily }
            .sorted { comparisons[$0].pValue! < comparisons[$1].pValue! }
        for (rank, i) in family.enumerated() {
            guard comparisons[i].pValue! <= alpha / Double(family.count - rank) else { break }
            comparisons[i].significant = true
        }
        for i in comparisons.indices {
            let m = comparisons[i]
            comparisons[i].verdict =
                if m.direction == .neutral { .neutral }
                else if !m.beyondTolerance { .unchanged }
                else if !m.inFamily { .untested }
                else if !m.significant { .unchanged }
                else { m.worse ? .regression : .improvement }
        }
        return family.count
    }

    /// Two-sided p-value of t with `dof` degrees of freedom (GSL's t distribution).
    static func twoSided(_ t: Double, dof: Double) -> Double? {
        guard dof > 0, !t.isNaN else { return nil }
        if t.isInfinite { return 0 }
        return min(1, 2 * Distribution.studentTUpperTail(abs(t), degreesOfFreedom: dof))
    }

    /// A difference over its standard error; 0/0 (no change, no spread) is p = 1 and a
    /// change with no spread at all p = 0.
    static func pValue(_ difference: Double, se: Double, dof: Double) -> Double? {
        if se == 0 { return difference == 0 ? 1 : 0 }
        return twoSided(difference / se, dof: dof)
    }

    /// Welch's t-test from two estimates' standard errors and degrees of freedom, with the
    /// Welch–Satterthwaite degrees of freedom.
    static func welchP(difference: Double, _ b: (se: Double, dof: Double), _ c: (se: Double, dof: Double)) -> Double? {
        let vb = b.se * b.se, vc = c.se * c.se
        let v = vb + vc
        guard v > 0 else { return pValue(difference, se: 0, dof: 1) }
        let dof = v * v / (vb * vb / b.dof + vc * vc / c.dof)
        return pValue(difference, se: v.squareRoot(), dof: dof)
    }

    /// The linearised (influence) values of a row's estimate over the whole fleet: the
    /// estimate θ and uᵢ with Σuᵢ = 0 and Var(θ) ≈ Σuᵢ² / (N(N−1)), N the fleet size.
    /// Devices outside the row's archetype have uᵢ = 0 (domain estimation), so one formula
    /// serves the `all` row and the per-archetype rows.
    /// - Per open, θ = R = Σy/Σx over the domain (x = opens): uᵢ = N(yᵢ − R·xᵢ)/Σx. For the
    ///   `all` row, Σuᵢ²/(N(N−1)) is exactly the square of summary.csv's SE(R).
    /// - Per device, θ = mean of y over the domain's n devices: uᵢ = N(yᵢ − θ)/n; for `all`,
    ///   the sample variance over N.
    static func linearised(_ t: DeviceTable, policy: String, archetype: String,
                           source: CheckMetric.Source) throws(RunFolderError) -> (estimate: Double, u: [Double], n: Int)? {
        let rows = t.rows(policy: policy)
        let inDomain = rows.map { archetype == "all" || t.archetype($0) == archetype }
        let n = inDomain.filter { $0 }.count
        let count = Double(rows.count)
        switch source {
        case .quantile:
            return nil
        case .perOpen(let column):
            let y = try t.values(column, policy: policy), x = try t.values("opens", policy: policy)
            var sx = 0.0, sy = 0.0
            for i in rows.indices where inDomain[i] { sx += x[i]; sy += y[i] }
            guard sx > 0 else { return nil }
            let r = sy / sx
            return (r, rows.indices.map { inDomain[$0] ? count * (y[$0] - r * x[$0]) / sx : 0 }, n)
        case .perDevice(let column):
            guard n > 0 else { return nil }
            let y = try t.values(column, policy: policy)
            var sy = 0.0
            for i in rows.indices where inDomain[i] { sy += y[i] }
            let mean = sy / Double(n)
            return (mean, rows.indices.map { inDomain[$0] ? count * (y[$0] - mean) / Double(n) : 0 }, n)
        }
    }

    /// The paired t-test, device by device. Both runs had the same seed, scenario and
    /// fleet, so device i is the same user reading the same feed in both; only what the
    /// code under test did differs. With uᵢ each run's linearised values (``linearised``),
    /// dᵢ = uᵢ(current) − uᵢ(baseline) and t = (θ_current − θ_baseline) / √(Σdᵢ² / (N(N−1))),
    /// N − 1 degrees of freedom (the domain's n − 1 for an archetype). For a per-open ratio
    /// with the same opens xᵢ in both runs, dᵢ ∝ (yᵢᶜ − R_c·xᵢ) − (yᵢᵇ − R_b·xᵢ): the paired
    /// ratio difference of paired.csv (there it is policy against policy within a run).
    /// Per device the linearisation is the plain paired t-test on the per-device values.
    static func pairedP(_ b: DeviceTable, _ c: DeviceTable, policy: String, archetype: String,
                        source: CheckMetric.Source) throws(RunFolderError) -> Double? {
        guard let lb = try linearised(b, policy: policy, archetype: archetype, source: source),
              let lc = try linearised(c, policy: policy, archetype: archetype, source: source) else { return nil }
        guard lb.u.count == lc.u.count, b.deviceIDs(policy: policy) == c.deviceIDs(policy: policy) else {
            throw .invalid("'\(c.path)' lists other devices than '\(b.path)' for policy \(policy)")
        }
        let n = Double(lb.u.count)
        guard n >= 2, min(lb.n, lc.n) >= 2 else { return nil }
        var ss = 0.0
        for (x, y) in zip(lb.u, lc.u) { ss += (y - x) * (y - x) }
        return pValue(lc.estimate - lb.estimate, se: (ss / (n * (n - 1))).squareRoot(), dof: Double(min(lb.n, lc.n) - 1))
    }

    /// Welch's t-test with each run's standard error from its own devices.csv.
    static func welchDevicesP(_ b: DeviceTable, _ c: DeviceTable, policy: String, archetype: String,
                              source: CheckMetric.Source) throws(RunFolderError) -> Double? {
        guard let lb = try linearised(b, policy: policy, archetype: archetype, source: source),
              let lc = try linearised(c, policy: policy, archetype: archetype, source: source),
              lb.u.count >= 2, lc.u.count >= 2, lb.n >= 2, lc.n >= 2 else { return nil }
        func se(_ u: [Double]) -> Double {
            let n = Double(u.count)
            return (u.reduce(0) { $0 + $1 * $1 } / (n * (n - 1))).squareRoot()
        }
        return welchP(difference: lc.estimate - lb.estimate, (se(lb.u), Double(lb.n - 1)), (se(lc.u), Double(lc.n - 1)))
    }

    // MARK: Exact mode

    /// The top-level keys of run.json that `--exact` leaves out: how the run went
    /// (`execution`) and which build and library made it. bgbench is deterministic, so the
    /// CSV files settle whether the numbers moved.
    public static let exactIgnoredKeys: Set<String> = ["execution", "git_commit", "bgbench_version", "gsl"]

    /// Every CSV the baseline holds (summary.csv, then devices, daily, hourly, paired) must
    /// be in the current folder, field for field; then run.json without
    /// ``exactIgnoredKeys``. One line per differing file, naming its first difference.
    /// Returns the differences and the files compared.
    public static func exactDifferences(baseline: RunFolder, current: RunFolder) throws(RunFolderError)
        -> (differences: [(file: String, message: String)], compared: [String]) {
        var differences: [(file: String, message: String)] = [], compared: [String] = []
        for name in ["summary.csv"] + RunFolder.optionalTables where baseline.has(name) {
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
        if let d = RunFolder.firstRunJSONDifference(baseline, current, ignoring: exactIgnoredKeys) {
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

/// summary.csv's rows by (policy, archetype), with the metric columns in file order.
struct SummaryRows {
    struct Key: Hashable { var policy: String; var archetype: String }
    struct Row { var scenario: String; var devices: Int; var fields: [String] }
    let path: String
    let header: [String: Int]
    var keys: [Key] = []
    var rows: [Key: Row] = [:]
    /// Metric columns: not identity columns, not interval bounds.
    let metricColumns: [String]

    init(_ folder: RunFolder) throws(RunFolderError) {
        let t = folder.summary
        path = folder.file("summary.csv")
        var header: [String: Int] = [:]
        for (i, name) in t.header.enumerated() { header[name] = i }
        self.header = header
        for column in ["scenario", "policy", "archetype", "devices"] where header[column] == nil {
            throw .invalid("'\(path)' has no column \(column)")
        }
        metricColumns = t.header.filter {
            !SummarySchema.identity.contains($0) && !$0.hasSuffix("_ci_low") && !$0.hasSuffix("_ci_high")
        }
        for (row, line) in zip(t.rows, t.lines) {
            let key = Key(policy: row[header["policy"]!], archetype: row[header["archetype"]!])
            guard let devices = Int(row[header["devices"]!]) else {
                throw .invalid("'\(path)' line \(line): devices is not an integer")
            }
            guard rows[key] == nil else {
                throw .invalid("'\(path)' line \(line): a second row for policy \(key.policy), archetype \(key.archetype)")
            }
            keys.append(key)
            rows[key] = Row(scenario: row[header["scenario"]!], devices: devices, fields: row)
        }
    }

    func number(_ row: Row, _ column: String) throws(RunFolderError) -> Double? {
        guard let i = header[column] else { return nil }
        let text = row.fields[i]
        if text.isEmpty { return nil }
        guard let value = Double(text) else { throw .invalid("'\(path)': '\(text)' in column \(column) is not a number") }
        return value
    }

    func value(_ row: Row, _ column: String) throws(RunFolderError) -> Double? { try number(row, column) }

    /// SE = interval half-width / t(0.975, n − 1), with n − 1 degrees of freedom (the
    /// interval's own, Reports/README.md), or nil without an interval.
    func standardError(_ row: Row, _ column: String) throws(RunFolderError) -> (se: Double, dof: Double)? {
        guard row.devices >= 2, let low = try number(row, column + "_ci_low"),
              let high = try number(row, column + "_ci_high") else { return nil }
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

    init(_ table: CSVTable, path: String) throws(RunFolderError) {
        self.table = table
        self.path = path
        guard let p = table.index(of: "policy"), let d = table.index(of: "device"), let a = table.index(of: "archetype") else {
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
    func values(_ column: String, policy: String) throws(RunFolderError) -> [Double] {
        let key = policy + "\u{0}" + column
        if let done = parsed[key] { return done }
        guard let j = table.index(of: column) else { throw .invalid("'\(path)' has no column \(column)") }
        var out: [Double] = []
        let rows = rows(policy: policy)
        out.reserveCapacity(rows.count)
        for r in rows {
            guard let v = Double(table.rows[r][j]) else {
                throw .invalid("'\(path)' line \(table.lines[r]), column \(column): '\(table.rows[r][j])' is not a number")
            }
            out.append(v)
        }
        parsed[key] = out
        return out
    }
}
