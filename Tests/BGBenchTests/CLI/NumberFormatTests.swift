import BGBench
import Testing
@testable import BGBenchCLI

/// The terminal's number formatter prints any Double and never traps (issue 29: a huge
/// value once crashed the process converting to Int64).
@Suite struct NumberFormatTests {
    @Test func ordinaryValuesKeepTheirFixedDecimals() {
        #expect(SummaryTable.fixed(3.14159, 2) == "3.14")
        #expect(SummaryTable.fixed(-0.005, 2) == "-0.01")
        #expect(SummaryTable.fixed(2.5, 0) == "3")
        #expect(SummaryTable.fixed(-1.25, 1) == "-1.3")
        #expect(SummaryTable.fixed(7, 3) == "7.000")
    }

    @Test func hugeInfiniteAndNaNValuesPrint() {
        // printf's digits of 1e300 (the Double nearest 10^300), as Python's '%.0f' gives them.
        let tenTo300 =
            "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"
        #expect(SummaryTable.fixed(1e300, 0) == tenTo300)
        #expect(SummaryTable.fixed(-1e300, 1) == "-" + tenTo300 + ".0")
        #expect(SummaryTable.fixed(Double.greatestFiniteMagnitude, 2).count == 309 + 3)
        // Just past the integer path's limit (2^62 after scaling) and just inside it.
        #expect(SummaryTable.fixed(0x1p62, 0) == "4611686018427387904")
        #expect(SummaryTable.fixed(0x1p62 - 1024, 0) == "4611686018427386880")
        #expect(SummaryTable.fixed(1e17, 2) == "100000000000000000.00")
        #expect(SummaryTable.fixed(.infinity, 2) == "inf")
        #expect(SummaryTable.fixed(-.infinity, 0) == "-inf")
        #expect(SummaryTable.fixed(.nan, 2) == "-")
    }

    /// The paired table prints a difference and its bounds to two significant digits of
    /// the half-width (issue 24 item 4): the issue's −0.05 [−0.149, 0.049] points printed
    /// as "0.0 [-0.1, 0.0]" with the column's one decimal.
    @Test func differencesKeepTheIntervalsPrecision() {
        func decimals(_ low: Double, _ high: Double, scale: Double = 1) -> Int? {
            SummaryTable.intervalDecimals(Estimate((low + high) / 2, low: low, high: high), scale: scale)
        }
        #expect(decimals(-0.00149, 0.00049, scale: 100) == 3)  // ±0.099 points
        #expect(SummaryTable.fixed(-0.0005 * 100, 3) == "-0.050")
        #expect(decimals(0.31, 0.82) == 2)  // ±0.255
        #expect(decimals(-1.4, 1.4) == 1)  // ±1.4
        #expect(decimals(101, 200) == 0)  // ±49.5
        #expect(decimals(-5000, 5000) == 0)
        #expect(decimals(1e-12, 3e-12) == 6)  // capped
        #expect(decimals(2, 2) == nil && SummaryTable.intervalDecimals(Estimate(3), scale: 1) == nil)
    }
}
