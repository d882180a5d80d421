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

    /// Integer addends below 2³¹ (counts) are summed apart in 64 bits; readers and merges
    /// see one sum, the same as the fixed point alone would hold.
    @Test func smallIntegersSumApartAndFoldExactly() {
        #expect(Self.sum([5, -5]).isZero && Self.sum([5, -5]) == ExactSum())
        #expect(Self.sum([5, 0.25, -5]).value == 0.25)
        #expect(Self.sum([2_147_483_647, 1, 0x1p31, -0x1p32]).isZero, "either side of 2³¹: the two paths meet")
        let mixed = Self.sum([3, 0x1p-100, 1e30, -1e30]).doubleDouble
        #expect(mixed.hi == 3 && mixed.lo == 0x1p-100)
        // Folding before an overflow: (2⁶³ − 2) + 5 = 2⁶³ + 3.
        var s = ExactSum()
        s.small = .max - 1
        s.add(5)
        #expect(s == Self.sum([0x1p63, 3]) && s.doubleDouble.hi == 0x1p63 && s.doubleDouble.lo == 3)
        // Merging two near-full integer parts: 2·(2⁶³ − 1) = 2⁶⁴ − 2.
        var a = ExactSum(), b = ExactSum()
        a.small = .max; b.small = .max
        a.add(b)
        #expect(a == Self.sum([0x1p64, -2]) && a.doubleDouble.hi == 0x1p64 && a.doubleDouble.lo == -2)
        // The shard codec writes the folded sum.
        #expect(a.normalized.small == 0 && a.normalized == a)
    }

    @Test func doubleDoubleKeepsTheRest() {
        let s = Self.sum([1, 0x1p-80])
        #expect(s.doubleDouble.hi == 1 && s.doubleDouble.lo == 0x1p-80)
    }
}
