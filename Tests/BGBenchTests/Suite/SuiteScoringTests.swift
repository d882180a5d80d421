import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench
@testable import BGHarness

/// The suite's arithmetic (docs/suite.md, "Scoring a task", "The aggregate") against numbers
/// worked by hand (the intervals with R's `qt(0.975, 2)`), and its definition's checks with
/// their exact lines.
@Suite struct SuiteScoringTests {
    func e(_ value: Double, _ low: Double, _ high: Double) -> Estimate { Estimate(value, low: low, high: high) }

    @Test func acrossSeedsIsStudentT() {
        // Mean 0.2, sd 0.1, half-width qt(0.975, 2) × 0.1 / √3 = 0.2484137711750330.
        let m = SuiteScoring.acrossSeeds([0.1, 0.2, 0.3])
        #expect(abs(m.value - 0.2) < 1e-15)
        #expect(abs(m.low! - -0.04841377117503304) < 1e-12)
        #expect(abs(m.high! - 0.4484137711750331) < 1e-12)
        // One seed: a mean and no interval.
        #expect(SuiteScoring.acrossSeeds([0.4]) == Estimate(0.4))
    }

    /// Each verdict from the two intervals' signs (quality higher is better, energy lower).
    @Test func verdicts() {
        let better = e(0.02, 0.01, 0.03), worse = e(-0.02, -0.03, -0.01), same = e(0, -0.01, 0.01)
        let cheaper = e(-2, -3, -1), dearer = e(2, 1, 3), level = e(0, -1, 1)
        #expect(SuiteScoring.verdict(quality: better, energy: nil) == .dominates)
        #expect(SuiteScoring.verdict(quality: worse, energy: nil) == .dominated)
        #expect(SuiteScoring.verdict(quality: same, energy: nil) == .indistinguishable)
        #expect(SuiteScoring.verdict(quality: same, energy: cheaper) == .dominates)
        #expect(SuiteScoring.verdict(quality: better, energy: cheaper) == .dominates)
        #expect(SuiteScoring.verdict(quality: better, energy: level) == .dominates)
        #expect(SuiteScoring.verdict(quality: same, energy: dearer) == .dominated)
        #expect(SuiteScoring.verdict(quality: worse, energy: level) == .dominated)
        #expect(SuiteScoring.verdict(quality: better, energy: dearer) == .tradesOff)
        #expect(SuiteScoring.verdict(quality: worse, energy: cheaper) == .tradesOff)
        #expect(SuiteScoring.verdict(quality: same, energy: level) == .indistinguishable)
        // An interval that touches zero is not a difference.
        #expect(SuiteScoring.verdict(quality: e(0.01, 0, 0.02), energy: nil) == .indistinguishable)
    }

    /// Shares 0.02/0.22, 0.02/0.22, 0.02/0.21: mean 0.0923520923520924, Student-t interval
    /// [0.0861433582543299, 0.0985608264498550]; a gap that is noise is undefined.
    @Test func gapShares() throws {
        let share = SuiteScoring.gapShare(
            policy: [0.50, 0.52, 0.49], baseline: [0.48, 0.50, 0.47], bound: [0.70, 0.72, 0.68])
        let mean = try #require(share.mean)
        #expect(abs(mean.value - 0.09235209235209242) < 1e-12)
        #expect(abs(mean.low! - 0.0861433582543299) < 1e-12)
        #expect(abs(mean.high! - 0.09856082644985495) < 1e-12)
        #expect(share.perSeed!.count == 3)
        let noise = SuiteScoring.gapShare(
            policy: [0.50, 0.52, 0.49], baseline: [0.48, 0.50, 0.47], bound: [0.50, 0.47, 0.49])
        #expect(noise == .undefined(reason: "gap_not_significant"))
        // The bound worse than fixed beyond doubt: undefined too, never a negative share.
        let worse = SuiteScoring.gapShare(policy: [0.5, 0.5], baseline: [0.5, 0.5], bound: [0.4, 0.41])
        #expect(worse == .undefined(reason: "gap_not_significant"))
    }

    @Test func constraintsHoldAtTheirLimit() {
        let max = SuiteConstraint(metric: "killed_per_day", limit: 0.05, isMaximum: true)
        let min = SuiteConstraint(metric: "fresh_open_rate", limit: 0.4, isMaximum: false)
        #expect(SuiteScoring.passes(max, 0.05) && !SuiteScoring.passes(max, 0.0500001))
        #expect(SuiteScoring.passes(min, 0.4) && !SuiteScoring.passes(min, 0.39))
    }

    /// Seeds resampled within tasks: a task whose seeds agree has no spread; one seed per
    /// task leaves nothing to resample; two tasks of seeds {0, 1} put each task's mean at
    /// 0, ½ or 1 (¼, ½, ¼), so the median of the two is 0 with chance 1/16 > 2.5 %: the
    /// interval is [0, 1] around 0.5, the same on every call.
    @Test func bootstrapMedian() throws {
        #expect(Scorecard.bootstrapMedian([], resamples: 100, seed: 1) == nil)
        #expect(Scorecard.bootstrapMedian([[0.3, 0.3, 0.3]], resamples: 200, seed: 1) == e(0.3, 0.3, 0.3))
        #expect(Scorecard.bootstrapMedian([[0.1], [0.5], [0.9]], resamples: 200, seed: 1) == e(0.5, 0.5, 0.5))
        let two = try #require(Scorecard.bootstrapMedian([[0, 1], [0, 1]], resamples: 2000, seed: 1))
        #expect(two == e(0.5, 0, 1))
        #expect(Scorecard.bootstrapMedian([[0, 1], [0, 1]], resamples: 2000, seed: 1) == two)
        // Type-7 quantiles: the median of an even count is the midpoint.
        #expect(Scorecard.median([4, 1, 3, 2]) == 2.5)
        #expect(Scorecard.quantile([0, 10], 0.025) == 0.25)
    }

    static let tiny = """
        {
          "suite": "bgbench-suite", "version": "test", "description": "tiny",
          "defaults": {"devices": 64, "days": 6, "warmup_days": 1, "seed": 1, "replications": 2},
          "quick": {"tasks": ["news"], "devices": 64, "days": 4, "warmup_days": 1, "seed": 1, "replications": 2},
          "constraints": [{"metric": "killed_per_day", "max": 0.05}],
          "bootstrap": {"resamples": 200, "seed": 1},
          "tasks": [{"id": "news", "scenario": "news", "why": "the reference"}]
        }
        """

    @Test func definitionReadsBack() throws {
        let suite = try SuiteDefinition.parse(Self.tiny, file: "tiny.json")
        #expect(suite.version == "test" && suite.tasks.map(\.id) == ["news"])
        #expect(suite.tasks[0].size == SuiteSize(devices: 64, days: 6, warmupDays: 1, seed: 1, replications: 2))
        #expect(suite.tasks[0].constraints == [SuiteConstraint(metric: "killed_per_day", limit: 0.05, isMaximum: true)])
        #expect(suite.quick.size.days == 4 && suite.bootstrapResamples == 200)
        #expect(suite.sha256.count == 64)
        // One byte more is another suite.
        #expect(try SuiteDefinition.parse(Self.tiny + "\n", file: "tiny.json").sha256 != suite.sha256)
    }

    /// Each mistake in a definition: one line naming file, line, column and JSON path.
    @Test(arguments: [
        (
            #""version": "test""#, #""version": "test", "colour": 1"#,
            "tiny.json:2:48: colour: unknown member; expected one of bootstrap, constraints, defaults, description, excluded, quick, suite, tasks, version"
        ),
        (
            #""why": "the reference"}"#,
            #""why": "the reference"}, {"id": "news", "scenario": "news", "why": "again"}"#,
            "tiny.json:7:80: tasks[1].id: task 'news' is defined twice"
        ),
        (
            #""tasks": ["news"]"#, #""tasks": ["sports"]"#,
            "tiny.json:4:23: quick.tasks[0]: no task 'sports' in the suite"
        ),
        (
            #""days": 6, "warmup_days": 1"#, #""days": 6, "warmup_days": 6"#,
            "tiny.json:3:57: defaults.warmup_days: expected fewer than days (6)"
        ),
        (
            #""metric": "killed_per_day""#, #""metric": "staleness_p95_s""#,
            "tiny.json:5:30: constraints[0].metric: 'staleness_p95_s' is not a summary.csv metric (a quantile cannot be a constraint)"
        ),
        (
            #""replications": 2},"#, #""replications": 1},"#,
            "tiny.json:3:87: defaults.replications: expected an integer from 2 to 100"
        ),
    ])
    func definitionMistakes(find: String, replace: String, line: String) throws {
        let text = Self.tiny.replacingOccurrences(of: find, with: replace)
        #expect(text != Self.tiny, "the case's text is not in the definition")
        #expect(throws: SuiteError(line)) { try SuiteDefinition.parse(text, file: "tiny.json") }
    }

    /// What a scorecard can be compared with: every task (full), the quick subset (quick),
    /// else partial, said in scorecard.md's first lines and in every scorecard.csv row.
    @Test func scopes() throws {
        let two = Self.tiny.replacingOccurrences(
            of: #""why": "the reference"}"#,
            with: #""why": "the reference"}, {"id": "fit", "scenario": "fitness-sync", "why": "x"}"#)
        let suite = try SuiteDefinition.parse(two, file: "two.json")
        let news = suite.tasks.filter { $0.id == "news" }
        func card(quick: Bool, _ tasks: [SuiteTask]) -> Scorecard {
            Scorecard(suite: suite, quick: quick, tasks: tasks, policies: [], scores: [])
        }
        #expect(card(quick: false, suite.tasks).scope == .full)
        #expect(card(quick: true, news).scope == .quick)  // the quick subset is news alone
        #expect(card(quick: false, news).scope == .partial)
        #expect(card(quick: true, suite.tasks).scope == .partial)
        let partial = ScorecardFiles.markdown(card(quick: false, news))
        #expect(
            partial.contains(
                "\n\n**Not comparable**: tasks chosen with `--task` (news); the aggregates are over these tasks only.\n"
            ))
        #expect(!ScorecardFiles.markdown(card(quick: false, suite.tasks)).contains("comparable"))
        #expect(
            ScorecardFiles.markdown(card(quick: true, news)).contains("comparable only with other quick scorecards"))
    }
}
