import Foundation

/// How a sweep's points (`bgbench sweep`) are simulated: each distinct configuration once.
///
/// Points whose scenarios meet the same users (``Scenario/meetsTheSameUsers(as:)``: they
/// differ only in `policies.*` and `platform.*`) form a group, run as one fleet pass per
/// seed. The pass's arms are the group's distinct (policy, scenario as that policy reads
/// it): a policy whose configuration a swept parameter does not change (`adaptive` in a
/// sweep of `policies.fixed.interval`) is one arm, simulated once and shared by every
/// point. Each point's report is the one ``Runner/run(_:progress:)`` gives for it alone,
/// byte for byte (SweepPlanTests): arms do not change one another's results, and each
/// point's comparison with its baseline policy is a pair of arms of the pass. A point can
/// also be compared, device by device, with a reference point of its group (`references`).
public struct SweepPlan: Sendable {
    /// The points' requests, in grid order.
    public let points: [RunRequest]
    /// For each point, the point whose results its policies are compared with (nil: none).
    public let references: [Int?]
    /// The groups of points meeting the same users, each a fleet pass per seed.
    let groups: [Group]

    struct Group {
        /// The group's points, in grid order.
        var points: [Int]
        /// The distinct arms: a policy and the first of the group's scenarios that
        /// configures it so.
        var arms: [(policy: String, scenario: Scenario)]
        /// For each of the group's points, each of its policies' arm.
        var armOf: [[Int]]
        /// The pairs of the pass: each point's policies against its baseline policy, and
        /// against the same policy at the reference point.
        var pairs: [ArmPair]
    }

    /// Plans `points` (all of one sweep: the same fleet, days, seeds and options) with
    /// each point's reference point, which must meet the same users.
    public init(points: [RunRequest], references: [Int?]? = nil) throws {
        let references = references ?? Array(repeating: nil, count: points.count)
        self.points = points
        self.references = references
        var groups: [Group] = []
        for (k, point) in points.enumerated() {
            for name in point.policies where PolicyRegistry.named(name) == nil { throw RunError.unknownPolicy(name) }
            let scenario = point.scenario.scenario
            if let g = groups.firstIndex(where: {
                points[$0.points[0]].scenario.scenario.meetsTheSameUsers(as: scenario)
            }) {
                groups[g].points.append(k)
            } else {
                groups.append(Group(points: [k], arms: [], armOf: [], pairs: []))
            }
        }
        for (k, reference) in references.enumerated() {
            guard let reference else { continue }
            guard points.indices.contains(reference),
                points[reference].scenario.scenario.meetsTheSameUsers(as: points[k].scenario.scenario)
            else { throw SweepPlanError.referenceMeetsOtherUsers(point: k, reference: reference) }
        }
        self.groups = groups.map { Self.arms(of: $0, points: points, references: references) }
    }

    /// The group's arms and pairs.
    private static func arms(of group: Group, points: [RunRequest], references: [Int?]) -> Group {
        var group = group
        for k in group.points {
            let scenario = points[k].scenario.scenario
            group.armOf.append(
                points[k].policies.map { name in
                    var own = scenario
                    own.policies = scenario.policies.only(name)
                    if let arm = group.arms.firstIndex(where: { $0.policy == name && $0.scenario == own }) {
                        return arm
                    }
                    group.arms.append((name, own))
                    return group.arms.count - 1
                })
        }
        var seen = Set<ArmPair>()
        func pair(_ a: Int, _ b: Int) {
            if seen.insert(ArmPair(arm: a, baseline: b)).inserted { group.pairs.append(ArmPair(arm: a, baseline: b)) }
        }
        for (i, k) in group.points.enumerated() {
            let request = points[k]
            if request.policies.count > 1, let b = request.resolvedBaseline.flatMap(request.policies.firstIndex) {
                for j in request.policies.indices where j != b { pair(group.armOf[i][j], group.armOf[i][b]) }
            }
            if let r = references[k], let ri = group.points.firstIndex(of: r) {
                for (j, name) in request.policies.enumerated() {
                    guard let rj = points[r].policies.firstIndex(of: name) else { continue }
                    pair(group.armOf[i][j], group.armOf[ri][rj])
                }
            }
        }
        return group
    }

    /// The arms of each group's fleet pass.
    public var passes: [Int] { groups.map(\.arms.count) }

    /// The arms of each group's fleet pass from the axes' value counts alone, without a
    /// point's scenario (what a sweep's estimate reads: a sweep of 10⁶ points is priced at
    /// once, not after its points are loaded and planned). Points that differ only under
    /// `policies` and `platform` meet the same users, so the groups are the combinations
    /// of the other axes' values; within a group, a policy is one arm per combination of
    /// the axes that configure it (its own `policies.NAME`, and `platform`). The same as
    /// ``passes`` when distinct values are distinct scenarios, which a sweep requires
    /// (`SweepCommand.refuseRepeatedValues`); empty when the group count overflows.
    public static func passes(axes: [SweepAxis], policies: [String]) -> [Int] {
        func under(_ path: String, _ root: String) -> Bool { path == root || path.hasPrefix(root + ".") }
        func product(_ axes: [SweepAxis]) -> Int? {
            axes.reduce(1 as Int?) { total, axis in
                total.flatMap { t in
                    let (p, overflow) = t.multipliedReportingOverflow(by: axis.values.count)
                    return overflow ? nil : p
                }
            }
        }
        let environment = axes.filter { !under($0.path, "policies") && !under($0.path, "platform") }
        guard let groups = product(environment) else { return [] }
        var arms = 0
        for name in policies {
            let own = axes.filter {
                $0.path == "policies" || under($0.path, "policies.\(name)") || under($0.path, "platform")
            }
            arms += product(own) ?? Int.max / 2
        }
        return Array(repeating: arms, count: groups)
    }

    /// Arms simulated per seed, over every group (a full sweep simulates points × policies).
    public var arms: Int { groups.reduce(0) { $0 + $1.arms.count } }

    /// The device-days this process simulates: each arm over the shard's devices, days
    /// and seeds (the progress bar's total).
    public var simulatedDeviceDays: Int {
        guard let first = points.first else { return 0 }
        let o = first.options
        return arms * o.part.devices(of: o.devices).count * o.days * first.seeds.count
    }

    /// The quantities whose per-device cross moments over a group's arms are kept for
    /// pareto-pairs.csv (``ParetoPairs``): what the fresh-open rate and background energy
    /// per device-day are read from.
    public static let jointQuantities: [Quantity] = [.opens, .freshOpens, .backgroundEnergy]

    /// The most arms a group's pass keeps joint sums for: they are (3 × arms)² / 2 exact
    /// sums, added for every device, so a larger group writes no pareto-pairs.csv (64 arms:
    /// 18,528 sums, a few per cent of the devices' simulation).
    public static let maxJointArms = 64

    /// Whether a group's pass keeps the joint sums: two arms or more, at most ``maxJointArms``.
    func keepsJoint(_ group: Group) -> Bool { (2...Self.maxJointArms).contains(group.arms.count) }

    /// The groups that keep joint sums, in order, with their arms' count: the layout of
    /// the joint sums a sweep shard's shard.state carries after its points' results (per
    /// group, per seed), so that `bgbench merge` reads and adds them.
    public var jointGroups: [(points: [Int], armOf: [[Int]], arms: Int)] {
        groups.filter(keepsJoint).map { ($0.points, $0.armOf, $0.arms.count) }
    }

    /// Runs every group's pass for every seed and returns each point's report. With `rows`,
    /// devices.csv's and events.csv's rows are written into it as the devices finish (its
    /// results: every point's ``RunRequest/rowLabels(lead:)``, in grid order) instead of
    /// being kept in the reports; the caller then calls its `finish()`.
    public func run(progress: (@Sendable (Int) -> Void)? = nil, rows: RowSpool? = nil) throws -> SweepRun {
        let start = DispatchTime.now()
        // Where each point's results begin among the spool's.
        let firstResult = points.reduce(into: [0]) { $0.append($0.last! + $1.seeds.count * $1.policies.count) }
        var results = [[PolicyResult]](repeating: [], count: points.count)
        var comparisons: [PointComparison] = []
        var joints: [SweepRun.GroupJoint] = []
        var threads = 0, events = 0.0
        for group in groups {
            let first = points[group.points[0]]
            let resolved = first.options.resolvedThreads
            let joint = keepsJoint(group) ? Self.jointQuantities : nil
            var sums: [JointSums] = []
            for (s, seed) in first.seeds.enumerated() {
                var options = first.options
                options.seed = seed
                options.threads = resolved
                // Each arm's rows go to every point's result it is.
                options.rows = rows.map { spool in
                    var results = [[Int]](repeating: [], count: group.arms.count)
                    for (i, k) in group.points.enumerated() {
                        for (j, arm) in group.armOf[i].enumerated() {
                            results[arm].append(firstResult[k] + s * points[k].policies.count + j)
                        }
                    }
                    return (spool, results)
                }
                let feed = Runner.feed(first.scenario.scenario, days: options.days, seed: seed)
                let arms = group.arms.map { FleetArm(policy: PolicyRegistry.named($0.policy)!, scenario: $0.scenario) }
                let run = try Fleet.simulate(
                    arms: arms, pairs: group.pairs, joint: joint, options: options, feed: feed, progress: progress)
                try rows?.check()
                if let j = run.joint { sums.append(j) }
                threads = max(threads, run.workers)
                events += run.results.reduce(0) { $0 + $1.fleet[.events] }
                func paired(_ a: Int, _ b: Int) -> PairedTally? {
                    group.pairs.firstIndex(of: ArmPair(arm: a, baseline: b)).map { run.pairs[$0] }
                }
                for (i, k) in group.points.enumerated() {
                    let request = points[k]
                    let b =
                        request.policies.count > 1 ? request.resolvedBaseline.flatMap(request.policies.firstIndex) : nil
                    for (j, name) in request.policies.enumerated() {
                        let arm = group.armOf[i][j]
                        results[k].append(
                            PolicyResult(
                                policy: name, seed: seed, result: run.results[arm], wallSeconds: run.busySeconds[arm],
                                workers: run.workers,
                                paired: b.flatMap { $0 == j ? nil : paired(arm, group.armOf[i][$0]) }))
                        if let r = references[k], let ri = group.points.firstIndex(of: r),
                            let rj = points[r].policies.firstIndex(of: name)
                        {
                            comparisons.append(
                                PointComparison(
                                    point: k, reference: r, policy: name, seed: seed,
                                    paired: paired(arm, group.armOf[ri][rj])!))
                        }
                    }
                }
            }
            if joint != nil { joints.append(.init(points: group.points, armOf: group.armOf, sums: sums)) }
        }
        let seconds = Runner.seconds(since: start)
        let reports = points.indices.map { k in
            RunReport(request: points[k], results: results[k], wallSeconds: seconds, threads: threads)
        }
        return SweepRun(
            reports: reports, comparisons: comparisons, joint: joints, wallSeconds: seconds,
            simulated: (simulatedDeviceDays, events), arms: arms)
    }
}

/// A sweep's outcome (``SweepPlan/run(progress:)``).
public struct SweepRun: Sendable {
    /// Each point's report, in grid order (its `wallSeconds` is the whole sweep's).
    public var reports: [RunReport]
    /// Each point's policies compared with the same policy at its reference point, per
    /// seed, in grid, seed and policy order.
    public var comparisons: [PointComparison]
    /// The groups whose passes kept their arms' joint sums (``SweepPlan/keepsJoint(_:)``).
    public var joint: [GroupJoint]
    public var wallSeconds: Double
    /// The device-days and events simulated: each arm once.
    public var simulated: (deviceDays: Int, events: Double)
    /// Arms simulated per seed.
    public var arms: Int
}

extension SweepRun {
    /// A group of points that met the same users, with its arms' per-device cross moments
    /// of ``SweepPlan/jointQuantities`` per seed: any two of its arms can be compared
    /// device by device after the run (``ParetoPairs``).
    public struct GroupJoint: Sendable {
        /// The group's points, in grid order.
        public var points: [Int]
        /// For each of the group's points, each of its policies' arm.
        public var armOf: [[Int]]
        /// Per seed, in seed order.
        public var sums: [JointSums]

        public init(points: [Int], armOf: [[Int]], sums: [JointSums]) {
            self.points = points; self.armOf = armOf; self.sums = sums
        }

        /// The arm of `policy` (an index into the point's policies) at `point`, nil when
        /// the point is not in the group.
        public func arm(point: Int, policy: Int) -> Int? { points.firstIndex(of: point).map { armOf[$0][policy] } }
    }
}

/// A policy at a sweep point compared with the same policy at the point's reference
/// point, device by device on one seed (the points meet the same users).
public struct PointComparison: Sendable {
    public var point: Int
    public var reference: Int
    public var policy: String
    public var seed: UInt64
    public var paired: PairedTally
}

/// A sweep that cannot be planned.
public enum SweepPlanError: Error, Equatable, CustomStringConvertible {
    case referenceMeetsOtherUsers(point: Int, reference: Int)
    public var description: String {
        switch self {
        case .referenceMeetsOtherUsers(let point, let reference):
            "point \(reference + 1) cannot be point \(point + 1)'s reference: their scenarios differ outside `policies` and `platform`, so they meet different users"
        }
    }
}
