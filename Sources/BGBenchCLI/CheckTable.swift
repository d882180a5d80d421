import BGBench
import BGHarness
import Foundation

/// The table of what moved: every comparison beyond its tolerance, regressions first.
enum CheckTable {
    static let order: [Verdict] = [.regression, .improvement, .notSignificant, .untested, .unchanged, .neutral]

    static func render(_ comparisons: [MetricComparison]) -> String {
        let moved = comparisons.enumerated().filter { $0.element.beyondTolerance }
            .sorted {
                (order.firstIndex(of: $0.element.verdict)!, $0.offset) < (
                    order.firstIndex(of: $1.element.verdict)!, $1.offset
                )
            }
            .map(\.element)
        guard !moved.isEmpty else { return "nothing moved beyond its tolerance\n" }
        let header = [
            "scenario", "policy", "archetype", "metric", "baseline", "current", "change %", "tol %", "p", "verdict",
        ]
        let rows = moved.map { m in
            [
                m.scenario, m.policy, m.archetype, m.metric, number(m.baseline), number(m.current),
                change(m.changePercent),
                number(m.tolerancePercent), p(m.pValue), m.verdict.rawValue,
            ]
        }
        return align([header] + rows, right: [4, 5, 6, 7, 8])
    }

    /// Columns padded to their widest field, `right` ones right-aligned, two spaces apart.
    static func align(_ table: [[String]], right: Set<Int>) -> String {
        let widths = table[0].indices.map { j in table.map { $0[j].count }.max()! }
        return table.map { row in
            row.enumerated().map { j, text in
                let pad = String(repeating: " ", count: widths[j] - text.count)
                return right.contains(j) ? pad + text : text + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    static func number(_ x: Double?) -> String {
        guard let x else { return "-" }
        return String(format: "%.6g", x)
    }

    static func change(_ x: Double?) -> String {
        guard let x else { return "-" }
        if x.isInfinite { return x > 0 ? "+inf" : "-inf" }
        return String(format: "%+.2f", x)
    }

    static func p(_ x: Double?) -> String {
        guard let x else { return "-" }
        return x < 1e-4 ? String(format: "%.1e", x) : String(format: "%.4f", x)
    }
}
