/// paired-points.csv (`bgbench sweep --baseline-point`): each policy at each sweep point
/// minus the same policy at the point's reference point, device by device on the same users
/// and feed (the two points differ only in policy or platform parameters, so they ran side
/// by side: ``SweepPlan``). One row per metric of paired.csv and seed with the
/// device-clustered 95 % interval; with replications, also the mean over the seeds with
/// the Student-t interval across them (Reports/README.md, "Points compared").
public enum PointPairs {
    /// The columns after the sweep's axis columns.
    public static let header = [
        "reference", "scenario", "policy", "seed", "interval_kind", "metric", "devices", "point_value",
        "reference_value", "difference", "difference_ci_low", "difference_ci_high", "excludes_zero",
    ]

    /// The file: `values` holds each point's axis values, `reference` names each point's
    /// reference (e.g. `platform.name=ios-bgtask`), `reports` each point's run.
    public static func csv(
        axes: [SweepAxis], values: [[String]], reference: [String], reports: [RunReport],
        comparisons: [PointComparison]
    ) -> String {
        var csv = CSVWriter("")
        csv.row(axes.map(\.path) + header)
        // Grid, then policy, then seed order: the comparisons come in grid, seed, policy order.
        var keys: [(point: Int, policy: String)] = []
        for c in comparisons where !keys.contains(where: { $0.point == c.point && $0.policy == c.policy }) {
            keys.append((c.point, c.policy))
        }
        keys.sort { a, b in
            a.point != b.point
                ? a.point < b.point
                : reports[a.point].request.policies.firstIndex(of: a.policy)!
                    < reports[b.point].request.policies.firstIndex(of: b.policy)!
        }
        for key in keys {
            let report = reports[key.point]
            let name = report.request.scenario.scenario.name
            let lead = values[key.point] + [reference[key.point], name, key.policy]
            var perSeed: [[PairedEstimate]] = []
            for c in comparisons where c.point == key.point && c.policy == key.policy {
                let estimates = Self.estimates(c, reports: reports)
                perSeed.append(estimates)
                for (metric, e) in zip(MetricTable.pairedMetrics, estimates) {
                    csv.row(
                        lead + [
                            String(c.seed), "devices", metric.metric.name, String(c.paired.devices),
                            CSVNumber.format(e.policy), CSVNumber.format(e.baseline),
                            CSVNumber.format(e.difference.value), CSVNumber.format(e.difference.low),
                            CSVNumber.format(e.difference.high), SeriesReports.mark(e.excludesZero),
                        ])
                }
            }
            guard perSeed.count > 1, let across = SeriesReports.acrossSeeds(perSeed) else { continue }
            for (k, metric) in MetricTable.pairedMetrics.enumerated() {
                let d = across[k].mean
                let finite = perSeed.map { $0[k] }.filter { $0.difference.value.isFinite }
                func mean(_ x: (PairedEstimate) -> Double) -> Double {
                    finite.isEmpty ? .nan : finite.reduce(0) { $0 + x($1) } / Double(finite.count)
                }
                csv.row(
                    lead + [
                        "", "seeds", metric.metric.name, "", CSVNumber.format(mean(\.policy)),
                        CSVNumber.format(mean(\.baseline)), CSVNumber.format(d.value), CSVNumber.format(d.low),
                        CSVNumber.format(d.high), SeriesReports.mark(d.low.map { $0 > 0 || d.high! < 0 }),
                    ])
            }
        }
        return csv.output
    }

    /// One comparison's estimates, one per metric of paired.csv.
    static func estimates(_ c: PointComparison, reports: [RunReport]) -> [PairedEstimate] {
        let point = reports[c.point], reference = reports[c.reference]
        func tally(_ r: RunReport) -> FleetTally {
            r.results.first { $0.policy == c.policy && $0.seed == c.seed }!.tally
        }
        let a = tally(point), b = tally(reference)
        let battery = point.request.scenario.scenario.device.batteryWh * 3600
        let serverJobs = a[.serverJobs] > 0 || b[.serverJobs] > 0
        return zip(MetricTable.pairedMetrics, c.paired.moments).map { metric, m in
            metric.estimate(m, days: point.countedDays, batteryJoules: battery, serverJobs: serverJobs)
        }
    }
}
