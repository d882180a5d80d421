import BGBench
import BGNumerics
import Foundation

/// A scorecard folder read back (`bgbench suite --compare`): scorecard.json's identity of
/// the suite and the build, and scorecard.csv's rows.
public struct ScorecardFolder: Sendable {
    public let path: String
    public let suiteName: String
    public let version: String
    public let sha256: String
    /// `full`, `quick` or `partial` (``Scorecard/Scope``).
    public let scope: String
    public let bgbenchVersion: String
    public let gitCommit: String
    public let policies: [String]
    /// The tasks scored, in the suite's order.
    public let tasks: [String]
    let rows: CSVTable

    /// Reads `path`'s scorecard.json and scorecard.csv; `role` ("A", "B") names the folder
    /// in messages. Missing files are `.missing` (exit 66); anything else `.invalid` (65).
    public init(path: String, role: String) throws(ReportFolderError) {
        self.path = path
        func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
        let jsonPath = file(ReportFile.scorecardJSON.name), csvPath = file(ReportFile.scorecardCSV.name)
        for f in [jsonPath, csvPath] where !FileManager.default.fileExists(atPath: f) {
            throw .missing(
                "no \((f as NSString).lastPathComponent) in scorecard \(role) '\(path)': not a scorecard folder")
        }
        let document: JSONDocument
        do { document = try JSONParser.parse(try ReportFolder.read(jsonPath)) } catch let error as JSONSyntaxError {
            throw .invalid("\(jsonPath):\(error.position.line):\(error.position.column): \(error.message)")
        } catch let error as ReportFolderError {
            throw error
        } catch {
            throw .invalid("\(jsonPath): \(error)")
        }
        func string(_ path: [String]) throws(ReportFolderError) -> String {
            var value: JSONValue? = document.root
            for key in path { value = value?.object?[key] }
            guard case .string(let s)? = value else {
                throw .invalid("\(jsonPath): \(path.joined(separator: ".")): expected a string")
            }
            return s
        }
        func strings(_ key: String, in object: JSONValue?) throws(ReportFolderError) -> [String] {
            guard let list = object?.object?[key]?.array else {
                throw .invalid("\(jsonPath): \(key): expected an array of strings")
            }
            var out: [String] = []
            for v in list {
                guard case .string(let s) = v else {
                    throw .invalid("\(jsonPath): \(key): expected an array of strings")
                }
                out.append(s)
            }
            return out
        }
        suiteName = try string(["suite", "name"])
        version = try string(["suite", "version"])
        sha256 = try string(["suite", "sha256"])
        scope = try string(["suite", "scope"])
        bgbenchVersion = try string(["bgbench", "version"])
        gitCommit = try string(["bgbench", "git_commit"])
        policies = try strings("policies", in: document.root)
        tasks = try strings("tasks", in: document.root.object?["suite"])
        let text = try ReportFolder.read(csvPath)
        do { rows = try CSVTable(parsing: text) } catch {
            throw .invalid("\(csvPath):\(error.line): \(error.message)")
        }
        guard rows.header == ReportFile.scorecardHeader else {
            throw .invalid(
                "\(csvPath):1: expected the header \(ReportFile.scorecardHeader.joined(separator: ",")) (a scorecard of this bgbench)"
            )
        }
    }

    /// A row's field by column name.
    func field(_ row: [String], _ column: String) -> String { row[rows.index(of: column)!] }

    /// The values of `quantity` for `task` and `policy`: across seeds (seed empty) and per
    /// seed, with the row's status.
    func values(task: String, policy: String, quantity: String) -> (
        mean: Double?, status: String, perSeed: [(UInt64, Double)]
    ) {
        var mean: Double?, status = "", perSeed: [(UInt64, Double)] = []
        for row in rows.rows
        where field(row, "task") == task && field(row, "policy") == policy && field(row, "quantity") == quantity {
            let value = Double(field(row, "value"))
            if let seed = UInt64(field(row, "seed")) {
                if let value { perSeed.append((seed, value)) }
            } else {
                mean = value
                status = field(row, "status")
            }
        }
        return (mean, status, perSeed)
    }

    /// The headline metric of a task (scorecard.csv's metric of its difference rows).
    func headline(task: String) -> String? {
        rows.rows.first { field($0, "task") == task && field($0, "quantity") == "headline_difference" }
            .map { field($0, "metric") }
    }
}

/// Two scorecards of one suite version compared task by task (docs/suite.md, "Comparing
/// scorecards"): per task and pair of policies, B's difference from `fixed` minus A's, in
/// the task's headline and in each gap closed. Paired across seeds when both scored the
/// task on the same seeds (each seed's difference, then Student's t), Welch's t across
/// seeds otherwise.
public enum ScorecardComparison {
    public struct Row: Sendable, Equatable {
        public var task: String
        public var policyA: String
        public var policyB: String
        public var quantity: String
        public var metric: String
        /// B minus A, with its 95 % interval (nil: undefined, `status` says why).
        public var difference: Estimate?
        /// `paired_seeds`, `welch_seeds`, or why there is no difference.
        public var status: String
    }

    public struct Outcome: Sendable {
        public var rows: [Row]
        /// Lines for stderr: what makes the comparison weaker than its numbers suggest.
        public var warnings: [String]
    }

    /// The quantities compared: each a difference from `fixed` (or a share of a gap), so
    /// that B − A is the policies' difference on the same users and feed.
    public static let quantities = ["headline_difference", "gap_closed_oracle", "gap_closed_prophet"]

    public static func compare(_ a: ScorecardFolder, _ b: ScorecardFolder) throws(ReportFolderError) -> Outcome {
        guard a.suiteName == b.suiteName, a.version == b.version else {
            throw .invalid(
                "scorecards of different suites: A '\(a.path)' is \(a.suiteName) v\(a.version), B '\(b.path)' is \(b.suiteName) v\(b.version); only scorecards of one suite version are compared"
            )
        }
        guard a.sha256 == b.sha256 else {
            throw .invalid(
                "scorecards of suite v\(a.version) with different definitions: A's SHA-256 \(a.sha256.prefix(12))…, B's \(b.sha256.prefix(12))… (a changed definition is a new version)"
            )
        }
        let quick = ["quick"]
        guard quick.contains(a.scope) == quick.contains(b.scope) else {
            throw .invalid(
                "scorecard A '\(a.path)' is \(a.scope) and B '\(b.path)' is \(b.scope): a quick scorecard is compared only with a quick one"
            )
        }
        let pairs = try policyPairs(a, b)
        var warnings: [String] = []
        if a.bgbenchVersion != b.bgbenchVersion || a.gitCommit != b.gitCommit {
            warnings.append(
                "warning: A was scored by bgbench \(a.bgbenchVersion) (commit \(a.gitCommit)), B by \(b.bgbenchVersion) (commit \(b.gitCommit)): the model may differ, and its change is in every difference below"
            )
        }
        let tasks = a.tasks.filter(b.tasks.contains)
        let onlyA = a.tasks.filter { !b.tasks.contains($0) }, onlyB = b.tasks.filter { !a.tasks.contains($0) }
        if !onlyA.isEmpty || !onlyB.isEmpty {
            warnings.append(
                "warning: compared on the \(tasks.count) tasks both scored; only in A: \(onlyA.isEmpty ? "none" : onlyA.joined(separator: ", ")); only in B: \(onlyB.isEmpty ? "none" : onlyB.joined(separator: ", "))"
            )
        }
        var rows: [Row] = []
        for task in tasks {
            for (pa, pb) in pairs {
                for quantity in quantities {
                    let va = a.values(task: task, policy: pa, quantity: quantity)
                    let vb = b.values(task: task, policy: pb, quantity: quantity)
                    var row = Row(
                        task: task, policyA: pa, policyB: pb, quantity: quantity,
                        metric: quantity == "headline_difference"
                            ? a.headline(task: task) ?? "" : MetricTable.freshOpenRate.name,
                        difference: nil, status: "")
                    if quantity == "headline_difference", va.status != vb.status {
                        // One at matched energy, the other at its point: not the same quantity.
                        row.status = "bases_differ (A \(va.status), B \(vb.status))"
                    } else if va.mean == nil || vb.mean == nil {
                        row.status = "undefined (A \(va.status), B \(vb.status))"
                    } else {
                        (row.difference, row.status) = difference(va.perSeed, vb.perSeed)
                    }
                    rows.append(row)
                }
            }
        }
        return Outcome(rows: rows, warnings: warnings)
    }

    /// Which of A's policies is compared with which of B's: the policies both scored, by
    /// name; else, when each scored one, those two.
    static func policyPairs(_ a: ScorecardFolder, _ b: ScorecardFolder) throws(ReportFolderError) -> [(String, String)]
    {
        let shared = a.policies.filter(b.policies.contains)
        if !shared.isEmpty { return shared.map { ($0, $0) } }
        if a.policies.count == 1, b.policies.count == 1 { return [(a.policies[0], b.policies[0])] }
        throw .invalid(
            "scorecard A scored \(a.policies.joined(separator: ", ")) and B \(b.policies.joined(separator: ", ")): no policy in both, and not one each, so nothing to pair"
        )
    }

    /// B − A from per-seed values: paired when the seeds are the same (each seed's B − A,
    /// then its mean with a Student-t interval), Welch's t otherwise (at least two seeds
    /// each).
    static func difference(_ a: [(UInt64, Double)], _ b: [(UInt64, Double)]) -> (Estimate?, String) {
        guard a.count >= 2, b.count >= 2 else { return (nil, "fewer_than_two_seeds") }
        if a.map(\.0) == b.map(\.0) {
            let d = zip(b, a).map { $0.1 - $1.1 }
            let s = SeedStatistics.se(d)
            return (interval(SeedStatistics.mean(d), se: s.se, dof: s.dof), "paired_seeds")
        }
        let sa = SeedStatistics.se(a.map(\.1)), sb = SeedStatistics.se(b.map(\.1))
        let va = sa.se * sa.se, vb = sb.se * sb.se
        let mean = SeedStatistics.mean(b.map(\.1)) - SeedStatistics.mean(a.map(\.1))
        guard va + vb > 0 else { return (Estimate(mean, low: mean, high: mean), "welch_seeds") }
        let dof = (va + vb) * (va + vb) / (va * va / sa.dof + vb * vb / sb.dof)
        return (interval(mean, se: (va + vb).squareRoot(), dof: dof), "welch_seeds")
    }

    static func interval(_ mean: Double, se: Double, dof: Double) -> Estimate {
        let t = Distribution.studentTQuantile(0.975, degreesOfFreedom: dof)
        return Estimate(mean, low: mean - t * se, high: mean + t * se)
    }

    /// The comparison as CSV (one row per task × policy pair × quantity).
    public static func csv(_ outcome: Outcome) -> String {
        var w = CSVWriter("")
        w.row(["task", "policy_a", "policy_b", "quantity", "metric", "b_minus_a", "ci_low", "ci_high", "status"])
        for r in outcome.rows {
            w.row([
                r.task, r.policyA, r.policyB, r.quantity, r.metric, CSVNumber.format(r.difference?.value),
                CSVNumber.format(r.difference?.low), CSVNumber.format(r.difference?.high), r.status,
            ])
        }
        return w.output
    }
}
