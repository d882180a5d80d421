/// The identities every device's tally satisfies, whatever the scenario and policy
/// (issue 13 point 7). A run with `RunOptions.checksInvariants` (`bgbench run
/// --check-invariants`) checks each device as it finishes and stops at the first device
/// that breaks one: a bug in the simulation, never a property of the input.
///
/// Each request is counted once, when it is resolved (MODEL.md §10): it falls due and
/// runs or is denied, or the policy replaces or withdraws it, or it is still pending at the
/// horizon; all of these are counted with the same clock, so the identity holds with a
/// warm-up too. A delivered push starts a run without a request.
public enum DeviceInvariants {
    /// The identities `t` breaks, each as one line naming the quantities and their values;
    /// empty when it is whole.
    public static func violations(_ t: DeviceTally) -> [String] {
        var broken: [String] = []
        func expect(_ holds: Bool, _ text: @autoclosure () -> String) { if !holds { broken.append(text()) } }

        let requestRuns = t[.runs] - t[.pushRuns]
        expect(
            t[.requested] == requestRuns + t[.denied] + t[.replaced] + t[.pending],
            "requested \(t[.requested]) ≠ runs without a push \(requestRuns) + denied \(t[.denied]) + replaced \(t[.replaced]) + pending \(t[.pending])"
        )
        let outcomes = RunStatus.allCases.reduce(0) { $0 + t.outcome($1) }
        expect(t[.runs] == outcomes, "runs \(t[.runs]) ≠ the sum of their outcomes \(outcomes)")
        let reasons = DenialReason.allCases.reduce(0) { $0 + t.denials($1) }
        expect(t[.denied] == reasons, "denied \(t[.denied]) ≠ the sum of denials by reason \(reasons)")
        expect(
            t[.freshOpens] <= t[.opens],
            "fresh opens \(t[.freshOpens]) > opens \(t[.opens]) (stale opens would be negative)")
        // Every counted stale open fetches in the foreground or, offline, fails (MODEL.md §5).
        let stale = t[.opens] - t[.freshOpens]
        expect(
            stale < 0 || t[.foregroundFetches] + t[.foregroundFailures] == stale,
            "foreground fetches \(t[.foregroundFetches]) + failures \(t[.foregroundFailures]) ≠ stale opens \(stale)")
        expect(
            t[.serverOnTime] <= t[.serverJobs],
            "server jobs on time \(t[.serverOnTime]) > server jobs \(t[.serverJobs])")
        expect(
            t[.processingOnTime] <= t[.processingCompleted],
            "processing on time \(t[.processingOnTime]) > processing completed \(t[.processingCompleted])")
        expect(t[.pushRuns] <= t[.pushSent], "push runs \(t[.pushRuns]) > pushes sent \(t[.pushSent])")
        for q in Quantity.allCases {
            switch q.storage {
            case .count: expect(t[q] >= 0, "\(q.label) is negative: \(t[q])")
            case .ticks: expect(t[ticks: q] >= 0, "\(q.label) is negative: \(t[ticks: q]) ticks")
            case .amount:
                let x = t[amount: q]
                expect(x.isFinite && x >= 0, "\(q.label) is \(x): expected a finite non-negative amount")
            }
        }
        return broken
    }
}

extension DeviceInvariants {
    /// The identities of ``violations(_:)`` that hold for sums over devices too (each is
    /// linear, or an inequality between sums of non-negative terms), on the totals `x` of a
    /// set of devices in ``Quantity`` order: a shard's fleet, an archetype, a device row.
    /// Every total is finite and non-negative, and every count a whole number. What
    /// `bgbench merge` checks in each shard before it adds it (README.md, "Beyond one
    /// machine"); empty when they hold.
    package static func violations(totals x: [Double]) -> [String] {
        var broken: [String] = []
        func expect(_ holds: Bool, _ text: @autoclosure () -> String) { if !holds { broken.append(text()) } }
        func v(_ q: Quantity) -> Double { x[q.rawValue] }
        func n(_ q: Quantity) -> String { "\(q.label) \(CSVNumber.format(v(q)))" }
        for q in Quantity.allCases {
            let value = v(q)
            guard value.isFinite, value >= 0 else {
                broken.append(
                    "\(q.label) is \(value.isFinite ? CSVNumber.format(value) : "\(value)"): expected a finite non-negative total"
                )
                continue
            }
            if q.storage == .count { expect(value == value.rounded(), "\(n(q)) is not a whole number") }
        }
        guard broken.isEmpty else { return broken }
        let runsWithoutPush = v(.runs) - v(.pushRuns)
        expect(
            v(.requested) == runsWithoutPush + v(.denied) + v(.replaced) + v(.pending),
            "\(n(.requested)) ≠ runs without a push \(CSVNumber.format(runsWithoutPush)) + \(n(.denied)) + \(n(.replaced)) + \(n(.pending))"
        )
        let outcomes = RunStatus.allCases.reduce(0.0) { $0 + v(.outcome($1)) }
        expect(v(.runs) == outcomes, "\(n(.runs)) ≠ the sum of their outcomes \(CSVNumber.format(outcomes))")
        let reasons = DenialReason.allCases.reduce(0.0) { $0 + v(.denied($1)) }
        expect(v(.denied) == reasons, "\(n(.denied)) ≠ the sum of denials by reason \(CSVNumber.format(reasons))")
        expect(v(.freshOpens) <= v(.opens), "\(n(.freshOpens)) > \(n(.opens))")
        let stale = v(.opens) - v(.freshOpens)
        expect(
            stale < 0 || v(.foregroundFetches) + v(.foregroundFailures) == stale,
            "\(n(.foregroundFetches)) + \(n(.foregroundFailures)) ≠ stale opens \(CSVNumber.format(stale))")
        expect(v(.serverOnTime) <= v(.serverJobs), "\(n(.serverOnTime)) > \(n(.serverJobs))")
        expect(v(.processingOnTime) <= v(.processingCompleted), "\(n(.processingOnTime)) > \(n(.processingCompleted))")
        expect(v(.pushRuns) <= v(.pushSent), "\(n(.pushRuns)) > \(n(.pushSent))")
        return broken
    }

    /// The most background energy (J) devices of `scenario` can book with `runs` runs and
    /// `transfers` background transfers in `deviceSeconds` device-seconds of counted time: each
    /// run or transfer costs at most the launch energy and the larger radio set-up (LTE or 5G
    /// promotion and tail, or the Wi-Fi tail), and its transfer time at most the highest active
    /// radio power; a device runs one background run at a time and one transfer beside it, so
    /// their active time is at most twice the time. `deviceSeconds` should hold one more day
    /// per device for a run that starts before the horizon and ends after it.
    package static func backgroundEnergyBound(
        _ scenario: Scenario, runs: Double, transfers: Double, deviceSeconds: Double
    ) -> Double {
        let e = scenario.energy
        let factor = max(1, e.nr5gPowerFactor)
        let setUp = max(
            e.wifiTail.seconds * e.wifiTailW,
            (e.ltePromotion.seconds * e.ltePromotionW + e.lteTail.seconds * e.lteTailW) * factor)
        let activeW = max(e.wifiActiveW, e.lteActiveW * factor)
        return (runs + transfers) * (scenario.app.launchJ + setUp) + 2 * activeW * deviceSeconds
    }
}
