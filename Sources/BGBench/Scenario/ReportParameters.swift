/// What the reports lead with (issue 12 point 4): each scenario names its headline
/// metrics, the figures its question is about (fitness-sync: the server's on-time rate and
/// lag; ecommerce: freshness and cellular image bytes; ...). The terminal table's paired
/// comparison and `bgbench plot`'s headline.png show them first; scenario.json carries them.
public struct ReportModel: ParameterSet {
    public init() {}

    public var headline = MetricTable.defaultHeadline

    public static var fields: [ParameterField<Self>] {
        [
            .metricNames(
                \.headline, "headline",
                "the scenario's headline metrics, summary.csv column names, most important first: the terminal table's paired comparison and `bgbench plot`'s headline.png lead with them; by default the default and news presets' question; bgbench's choice per preset (README, \"Presets\")"
            )
        ]
    }
}

extension ParameterField {
    /// A non-empty list of distinct summary.csv metric names (`MetricTable.metrics`).
    public static func metricNames(_ key: KeyPath<Root, [String]>, _ name: String, _ doc: String) -> Self {
        Self(name: name, unit: "metric names", range: "summary.csv metrics", doc: doc) { root, c, path in
            let names = root[keyPath: key]
            if names.isEmpty { c.fail(path, "an empty list: expected at least one metric of summary.csv") }
            for (i, metric) in names.enumerated() {
                let at = JSONPathText.index(path, i)
                if MetricTable.named(metric) == nil {
                    let hint =
                        Suggestion.closest(to: metric, in: MetricTable.metrics.map(\.name)).map {
                            " (did you mean '\($0)'?)"
                        } ?? ""
                    c.fail(
                        at, "unknown metric '\(metric)': expected a column of summary.csv (Reports/README.md)\(hint)")
                } else if names[..<i].contains(metric) {
                    c.fail(at, "'\(metric)' is listed twice: expected each metric once")
                }
            }
        }
    }
}
