import Foundation
import Testing
@testable import BGBench

/// The exact accumulator behind every sum over devices (issue 14 point 1): exact, the
/// same in any order, correctly rounded once.
@Suite struct ExactSumTests {
    static func sum(_ values: [Double]) -> ExactSum {
        var s = ExactSum()
        for v in values { s.add(v) }
        return s
    }

    @Test func keepsWhatDoubleAdditionLoses() {
        #expect(Self.sum([1e16, 1, -1e16]).value == 1)
        #expect([1e16, 1, -1e16].reduce(0, +) == 0, "plain addition loses the 1")
        #expect(Self.sum([-3.5, 1.25]).value == -2.25)
        #expect(Self.sum([0.1, 0.2]).value == 0.30000000000000004, "the exact sum of the two doubles, rounded once")
        #expect(Self.sum([1e-300, 1]).value == 1)
        #expect(Self.sum([]).value == 0 && Self.sum([]).isZero)
    }

    /// Against an integer oracle: k·2⁻³⁰ with random |k| < 2⁴⁰ sums exactly in Int128; the
    /// accumulator gives its correctly rounded double in every order and split.
    @Test func isExactAndOrderFreeOnRandomValues() {
        var rng = SplitMix64(7)
        var ks: [Int64] = []
        for _ in 0..<5000 { ks.append(Int64(bitPattern: rng.next()) >> 24) }
        let values = ks.map { Double($0) * 0x1p-30 }
        let exact = ks.reduce(Int128(0)) { $0 + Int128($1) }
        let oracle = Double(exact) * 0x1p-30
        let forward = Self.sum(values)
        #expect(forward.value == oracle)
        var shuffled = values
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        #expect(Self.sum(shuffled) == forward)
        // Split in three parts, summed apart and merged in another order.
        var merged = Self.sum(Array(values[3000...]))
        merged.add(Self.sum(Array(values[..<1000])))
        merged += Self.sum(Array(values[1000..<3000]))
        #expect(merged == forward)
        // Mixed magnitudes: the sum in any order is the same bits.
        let wide = (0..<3000).map { i in Double(Int64(bitPattern: rng.next()) >> 11) * pow(2, Double(i % 120 - 60)) }
        #expect(Self.sum(wide) == Self.sum(wide.reversed()))
        #expect(Self.sum(wide).value == Self.sum(wide.reversed()).value)
    }

    @Test func roundsOnceToNearestEven() {
        let big = 0x1p53
        #expect(Self.sum([big, 1]).value == big, "2⁵³ + 1 is a tie: to even")
        #expect(Self.sum([big, 1, 0x1p-100]).value == big + 2, "anything past the tie rounds up")
        #expect(Self.sum([big, 3]).value == big + 4, "2⁵³ + 3: a tie, to even")
        #expect(Self.sum([-big, -1, -0x1p-100]).value == -(big + 2))
    }

    @Test func tinyAddendsRoundToTheLastBit() {
        #expect(Self.sum([0x1p-129]).value == 0, "half the last bit: a tie, to even (0)")
        #expect(Self.sum([3 * 0x1p-129]).value == 0x1p-127, "1.5 last bits: a tie, to even (2)")
        #expect(Self.sum([0x1p-128]).value == 0x1p-128)
    }

    @Test func nonFiniteAndOutOfRangeAddendsAreIEEELike() {
        #expect(Self.sum([1, .infinity]).value == .infinity)
        #expect(Self.sum([.infinity, -.infinity]).value.isNaN)
        #expect(Self.sum([1, .nan]).value.isNaN)
        #expect(Self.sum([0x1p180]).value.isNaN, "beyond the accumulator's range (2¹⁷⁹)")
        #expect(Self.sum([0x1p178, 0x1p178]).value == 0x1p179, "within it")
    }

    @Test func doubleDoubleKeepsTheRest() {
        let s = Self.sum([1, 0x1p-80])
        #expect(s.doubleDouble.hi == 1 && s.doubleDouble.lo == 0x1p-80)
    }
}
