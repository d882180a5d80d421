// The parameters the learning policies share (docs/policies.md, "Rules the learning
// policies share" and "A changed routine"); the behaviour they configure is in
// PolicySupport.swift.

// The learning policies (usage, histogram, nhpp, bayes, kde, logistic) share three rules
// with parameters of the same names (docs/policies.md, "Rules the learning policies
// share"): the next wake comes at least `min_gap` after the last run started; after a
// `failed` run the policy waits `failure_backoff`, after an expired or killed run
// `kill_backoff`, doubled for each further failure in a row (at most a day). Every value
// below is bgbench's own assumption unless a source is named.

/// When a learning policy judges that the user's routine changed, and how much of what
/// it learned it keeps then (docs/policies.md, "A changed routine"; `RoutineChange` in
/// Policies/PolicySupport.swift). `histogram`, `nhpp`, `bayes`, `kde` and `logistic` each
/// have a copy under `routine_change`. All are bgbench's assumptions, checked on issue 3's
/// 4 h shift of the routine user (AdaptationTests) and on the default scenario.
public struct RoutineChangeParameters: ParameterSet {
    public init() {}

    /// The defaults but `keep`.
    public init(keep: Double) { self.keep = keep }

    public var keep = 0.02
    public var rareHourShare = 0.01
    public var surprisingShare = 2.0 / 3
    public var minOpens = 2
    public var minHistory = 10.0
    public var minDays = 2
}
extension RoutineChangeParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .number(
                \.keep, "keep", "share", in: 0...1,
                "what stays of the statistics (and of the judge's own profile) when a changed routine is seen (policies.md, \"A changed routine\"); assumption: 2 % (weeks of the old routine shrink to well under a day's weight)"
            ),
            .number(
                \.rareHourShare, "rare_hour_share", "share", in: 0...1,
                "an hour of the day is rare below this share of the profile of opens; assumption (uniform: 1/24 ≈ 4.2 %)"
            ),
            .number(
                \.surprisingShare, "surprising_share", "share", in: 0...1,
                "a changed routine: at least this share of a day's opens in rare hours; assumption: two thirds (a routine moved into the night loses opens to the sleep window)"
            ),
            .integer(
                \.minOpens, "min_opens", "integer", in: 1...1000,
                "... of a day with at least this many opens; assumption"),
            .number(
                \.minHistory, "min_history", "opens", in: 0...1_000_000,
                "... once the profile holds this many (decayed) opens; assumption: about three days of a routine user's"
            ),
            .integer(
                \.minDays, "min_days", "days", in: 1...30,
                "... on this many days in a row (a new routine persists; an odd day does not); assumption, checked on `nhpp`'s cost: with 1, users who open the app once or twice a day at random hours set it off often, and each time the policy forgets and refits (`nhpp` cost 3.9× `fixed` on the default scenario; with 2, 2×)"
            ),
        ]
    }
}

/// The rules every learning policy shares (`half_life`, `lead`, `min_gap`,
/// `failure_backoff`, `kill_backoff`; the comment above `RoutineChangeParameters`), as
/// fields a policy's `ParameterSet` lists: one declaration, reused.
public enum LearningRules {
    /// The shared fields; `minGap` nil for a policy without one (`usage`). `halfLifeDoc`
    /// says what the half-life weighs and where its default comes from.
    public static func fields<P>(
        halfLife: KeyPath<P, TimeSpan>, halfLifeDoc: String, lead: KeyPath<P, TimeSpan>,
        leadDoc: String = "wake this long before the chosen slot; assumption",
        minGap: KeyPath<P, TimeSpan>?, failureBackoff: KeyPath<P, TimeSpan>,
        killBackoff: KeyPath<P, TimeSpan>
    ) -> [ParameterField<P>] {
        var fields: [ParameterField<P>] = [
            .duration(halfLife, "half_life", in: .hours(1)...(.days(365)), halfLifeDoc),
            .duration(lead, "lead", in: .minutes(0)...(.hours(6)), leadDoc),
        ]
        if let minGap {
            fields.append(
                .duration(
                    minGap, "min_gap", in: .minutes(0)...(.days(7)),
                    "least time from a run's start to the next wake; assumption"))
        }
        fields.append(
            .duration(
                failureBackoff, "failure_backoff", in: .minutes(0)...(.days(1)),
                "wait after a `failed` run, doubled per further failure in a row (at most 1 d); assumption"))
        fields.append(
            .duration(
                killBackoff, "kill_backoff", in: .minutes(0)...(.days(1)),
                "wait after an `expired` or `killed` run, doubled likewise; assumption"))
        return fields
    }

    /// The `routine_change` group.
    public static func routineChange<P>(
        _ key: KeyPath<P, RoutineChangeParameters>,
        _ doc: String = "when the policy judges that the user's routine changed (policies.md, \"A changed routine\")"
    )
        -> ParameterField<P>
    {
        .group(key, "routine_change", doc)
    }
}
