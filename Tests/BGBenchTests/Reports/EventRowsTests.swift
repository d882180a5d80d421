import Testing

@testable import BGBench

/// events.csv's rows, written byte by byte (`SeriesReports.appendEvents`): known answers
/// typed by hand, so a slip in the digits of a time, a day or a value, or a label left
/// unquoted, shows here and not only as a difference between two runs.
@Suite struct EventRowsTests {
    static func text(_ rows: [TraceRow], _ labels: [String] = ["default", "fixed", "1"]) -> String {
        var bytes: [UInt8] = []
        SeriesReports.appendEvents(rows, labels: labels, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func rowsAsTypedByHand() {
        let rows = [
            // Day 0, the first microsecond; no value.
            TraceRow(device: 0, time: 1, event: "requested", detail: "", value: nil),
            // Day 1 at 00:00:00.5 (seconds with their trailing zeros dropped); a whole value.
            TraceRow(device: 12, time: 86_400_500_000, event: "denied", detail: "budget", value: 900),
            // Day 149 (12,941,273 s), six decimals kept; a value of 0.0005 s (leading zeros of the fraction kept).
            TraceRow(
                device: 7_654_321, time: 12_941_273_289_001, event: "completed", detail: "new_data", value: 0.0005),
            // A whole second, then a value of 12.25 s.
            TraceRow(device: 3, time: 10_000_000, event: "open", detail: "stale", value: 12.25),
        ]
        #expect(
            Self.text(rows)
                == """
                default,fixed,1,0,0.000001,0,requested,,
                default,fixed,1,12,86400.5,1,denied,budget,900
                default,fixed,1,7654321,12941273.289001,149,completed,new_data,0.0005
                default,fixed,1,3,10,0,open,stale,12.25

                """)
    }

    /// Labels with a comma or a quote are quoted as RFC 4180 says, once for every row.
    @Test func labelsAreQuoted() {
        let row = TraceRow(device: 0, time: 0, event: "midnight", detail: "", value: nil)
        #expect(
            Self.text([row, row], [#"my "news", app"#, "fixed", "18446744073709551615"])
                == #""my ""news"", app",fixed,18446744073709551615,0,0,0,midnight,,"# + "\n"
                + #""my ""news"", app",fixed,18446744073709551615,0,0,0,midnight,,"# + "\n")
    }

    @Test(arguments: [
        (SimTime(0), "0"), (1, "0.000001"), (999_999, "0.999999"), (1_000_000, "1"), (1_500_000, "1.5"),
        (1_000_010, "1.00001"), (-2_500_000, "-2.5"), (SimTime.max, "9223372036854.775807"),
    ])
    func secondsByHand(ticks: SimTime, text: String) {
        #expect(CSVNumber.seconds(ticks) == text)
    }
}
