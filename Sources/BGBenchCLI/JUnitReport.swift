import BGBench
import BGHarness
import Foundation

/// JUnit XML (the format of Ant's junit task that CI servers read): one <testsuite> per
/// compared run, one <testcase> per scenario × policy × archetype × metric, a regression as
/// <failure>; counts on each suite and on the root.
enum JUnitReport {
    struct Case { var classname: String; var name: String; var failure: String?; var note: String? }
    struct Suite { var name: String; var cases: [Case] }

    /// The root element every JUnit file of `check` opens with.
    static let root = "<testsuites name=\"bgbench check\""

    /// What `--junit` may overwrite: a JUnit file `check` wrote (its XML declaration and root).
    static let fileKind = OutputGuard.FileKind(description: "a JUnit report of bgbench check") { bytes in
        let head = String(decoding: bytes, as: UTF8.self)
        return head.hasPrefix("<?xml") && head.contains(root)
    }

    static func statistical(_ comparisons: [MetricComparison], suites: [(name: String, range: Range<Int>)]) -> String {
        render(
            suites.map { suite in
                Suite(
                    name: "bgbench check \(suite.name)",
                    cases: comparisons[suite.range].map { m in
                        let text = describe(m)
                        return Case(
                            classname: "\(m.scenario).\(m.policy).\(m.archetype)", name: m.metric,
                            failure: m.verdict == .regression ? text : nil, note: m.verdict == .regression ? nil : text)
                    })
            })
    }

    /// "regression: 0.337 → 0.301 (-10.65 %, tolerance 1 %), p = 1.2e-08 (paired t)".
    static func describe(_ m: MetricComparison) -> String {
        "\(m.verdict.rawValue): \(CheckTable.number(m.baseline)) → \(CheckTable.number(m.current)) "
            + "(\(CheckTable.change(m.changePercent)) %, tolerance \(CheckTable.number(m.tolerancePercent)) %), "
            + "p = \(CheckTable.p(m.pValue))" + (m.test.map { " (\($0.rawValue))" } ?? "")
    }

    static func render(_ suites: [Suite]) -> String {
        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "\(root) tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\">\n"
        for suite in suites {
            let f = suite.cases.filter { $0.failure != nil }.count
            xml +=
                "  <testsuite name=\"\(escape(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(f)\" errors=\"0\" skipped=\"0\" time=\"0\">\n"
            for c in suite.cases {
                xml += "    <testcase classname=\"\(escape(c.classname))\" name=\"\(escape(c.name))\" time=\"0\""
                if let failure = c.failure {
                    xml +=
                        ">\n      <failure message=\"\(escape(failure))\" type=\"regression\">\(escape(failure))</failure>\n    </testcase>\n"
                } else if let note = c.note {
                    xml += "><system-out>\(escape(note))</system-out></testcase>\n"
                } else {
                    xml += "/>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// Text for XML 1.0 attributes and content: the five predefined entities, and
    /// characters XML 1.0 cannot hold (controls other than tab, LF, CR) as U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
