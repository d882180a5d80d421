import Foundation
import Testing
@testable import BGBench

/// The staleness histogram finds bins by table (`LogHistogram.BinTable`); the bins must be
/// exactly those of the definition `LogHistogram.bin` (a logarithm), or quantiles would
/// move. Checked at every bin edge and its neighbouring doubles, and on a million values.
@Suite struct LogHistogramTests {
    @Test func tableAgreesWithTheDefinitionAtEveryEdge() {
        let table = LogHistogram.table
        #expect(table.edges.count == LogHistogram.binCount + 1)
        var mismatches = 0
        for edge in table.edges.dropFirst().dropLast() {
            var x = edge.nextDown.nextDown
            for _ in 0..<5 {
                if table.bin(x) != LogHistogram.bin(x) { mismatches += 1 }
                x = x.nextUp
            }
        }
        #expect(mismatches == 0)
    }

    @Test func tableAgreesWithTheDefinitionEverywhere() {
        let table = LogHistogram.table
        var rng = RandomStream(seed: 1, device: 0, purpose: .policy)
        var mismatches = 0
        // Log-uniform from 1e-5 to 1e10 s: below the minimum, every bin, above the maximum.
        for _ in 0..<1_000_000 {
            let x = pow(10, -5 + 15 * rng.uniform())
            if table.bin(x) != LogHistogram.bin(x) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        for x in [
            LogHistogram.minimum, LogHistogram.minimum.nextUp, LogHistogram.maximum, LogHistogram.maximum.nextUp,
            1e-300, 5e-324, 1e300, 1, 60, 3600, 86400,
        ] {
            #expect(table.bin(x) == LogHistogram.bin(x), "at \(x)")
        }
        // Where x / minimum overflows, the definition's logarithm is infinite (its bin is
        // undefined); the table puts such values in the last bin, as documented.
        #expect(table.bin(.greatestFiniteMagnitude) == LogHistogram.binCount - 1)
        #expect(table.bin(.infinity) == LogHistogram.binCount - 1)
    }
}
