import BGBench
import Foundation

extension ReportFolder {
    /// The relative difference within which a summary.csv figure agrees with the one
    /// recomputed from devices.csv. Both come from the same exact sums of the same doubles
    /// (devices.csv writes each in its shortest round-trip form), so they are equal; the
    /// tolerance only absorbs a last digit.
    public static let agreementTolerance = 1e-9

    /// Checks that summary.csv says what devices.csv says, where devices.csv determines it
    /// (README.md, "In CI"): for every row (policy, archetype, seed), its `devices` is the
    /// number of devices.csv's rows, and every column of a metric estimated from the
    /// per-device quantities (per open, per device-day, per server job, a share: all but
    /// the staleness quantiles and their flags), with its `_ci_low` and `_ci_high`, is the
    /// estimate recomputed from those rows' sums, within ``agreementTolerance``. A folder
    /// without devices.csv, or of another layout (a sweep's, a frontier's), is not checked.
    /// `battery_pct_per_day` is checked when run.json's scenario gives `device.battery_wh`.
    public func verifySummaryAgreesWithDevices() throws(ReportFolderError) {
        guard summary.header == SummarySchema.header, let devices = try table("devices.csv"),
            devices.header == SeriesReports.devicesHeader
        else { return }
        let column = { (name: String) in devices.header.firstIndex(of: name)! }
        let (policy, seed, archetype) = (column("policy"), column("seed"), column("archetype"))
        let first = column(Quantity.allCases[0].label)
        struct Key: Hashable { var policy: String, seed: String, archetype: String }
        var tallies: [Key: FleetTally] = [:]
        for (row, line) in zip(devices.rows, devices.lines) {
            var values: [Double] = []
            values.reserveCapacity(Quantity.count)
            for (j, text) in row[first..<first + Quantity.count].enumerated() {
                guard let v = Double(text) else {
                    throw .invalid(
                        "'\(file("devices.csv"))' line \(line), column \(first + j + 1) (\(devices.header[first + j])): '\(text)' is not a number"
                    )
                }
                values.append(v)
            }
            for group in [row[archetype], "all"] {
                tallies[Key(policy: row[policy], seed: row[seed], archetype: group), default: FleetTally()].add(values)
            }
        }
        var batteryJoules: Double?
        if case .number(let wh, _)? = runJSON.object?["scenario"]?.object?["device"]?.object?["battery_wh"] {
            batteryJoules = wh * 3600
        }
        let path = file("summary.csv")
        let index = Dictionary(uniqueKeysWithValues: summary.header.enumerated().map { ($1, $0) })
        for (row, line) in zip(summary.rows, summary.lines) {
            let key = Key(policy: row[index["policy"]!], seed: row[index["seed"]!], archetype: row[index["archetype"]!])
            let tally = tallies[key] ?? FleetTally()
            let what = "policy \(key.policy), archetype \(key.archetype), seed \(key.seed)"
            guard Int(row[index["devices"]!]) == tally.devices else {
                throw .invalid(
                    "'\(path)' line \(line), column devices: \(what): \(row[index["devices"]!]) in summary.csv, but devices.csv has \(tally.devices) rows"
                )
            }
            guard let days = Int(row[index["days"]!]), let warmup = Int(row[index["warmup_days"]!]) else {
                throw .invalid("'\(path)' line \(line): days or warmup_days is not an integer")
            }
            let estimates = FleetEstimates(tally: tally, days: days - warmup)
            for metric in MetricTable.metrics where metric.kind.quantity != nil {
                if case .batteryPercentPerDay = metric.kind, batteryJoules == nil { continue }
                let e = metric.estimate(estimates, batteryJoules: batteryJoules ?? 1)
                let columns =
                    [(metric.name, Optional(e.value))]
                    + (metric.interval ? [(metric.name + "_ci_low", e.low), (metric.name + "_ci_high", e.high)] : [])
                for (name, recomputed) in columns {
                    let text = row[index[name]!]
                    let written = Double(text)
                    let expected = recomputed.flatMap { $0.isFinite ? $0 : nil }
                    let agree: Bool
                    switch (written, expected) {
                    case (nil, nil): agree = text.isEmpty
                    case (let a?, let b?): agree = abs(a - b) <= Self.agreementTolerance * max(abs(a), abs(b))
                    default: agree = false
                    }
                    if !agree {
                        throw .invalid(
                            "'\(path)' line \(line), column \(name): \(what): \(text.isEmpty ? "(empty)" : text) in summary.csv, but devices.csv's rows give \(CSVNumber.format(expected).isEmpty ? "(empty)" : CSVNumber.format(expected)): not the file the run wrote"
                        )
                    }
                }
            }
        }
    }
}
