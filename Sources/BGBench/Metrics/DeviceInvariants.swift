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
