/// A sum of doubles kept exactly and rounded once, when read: the accumulator behind every
/// sum over devices (MODEL.md §2). Each addend is added without rounding into a 320-bit
/// two's-complement fixed-point number with 128 bits after the binary point, so the sum
/// is the same whatever the order of the additions: the same on any thread count, block
/// size or sharding, and shards merge by adding their sums (`bgbench merge`).
///
/// Range: an addend's bits below 2⁻¹²⁸ are rounded off (to nearest, ties to even), which
/// touches only addends below about 2⁻⁷⁵ ≈ 3·10⁻²³; an addend of magnitude 2¹⁷⁹ ≈ 7.7·10⁵³ or
/// more, and any infinity or NaN, makes the sum NaN (or the infinity, when all agree), as
/// IEEE addition would. `value` is correctly rounded (to nearest, ties to even).
public struct ExactSum: Sendable, Equatable {
    /// The fixed-point number, least significant limb first; bit 319 is the sign.
    var limbs = InlineArray<5, UInt64>(repeating: 0)
    /// The IEEE sum of the addends that are not finite or out of range (0 when none).
    var special = 0.0
    /// The sum of the addends that are integers of magnitude below 2³¹ (counts: most of
    /// what is summed), kept apart because one integer addition is several times cheaper
    /// than a fixed-point one. Exact: it is folded into `limbs` before it could overflow,
    /// and by every reader (`normalized`), so it never changes a result.
    var small: Int64 = 0

    static let fractionBits = 128
    static let limbCount = 5

    public init() {}

    public init(_ x: Double) { add(x) }

    /// Adds x exactly.
    @inline(__always)
    public mutating func add(_ x: Double) {
        // Two compares, a truncation and a compare (NaN fails the first two).
        if x > -0x1p31 && x < 0x1p31, case let n = Int64(x), Double(n) == x {
            let (sum, overflow) = small.addingReportingOverflow(n)
            if overflow { foldSmall() }
            small = overflow ? n : sum
            return
        }
        let bits = x.bitPattern
        let field = Int((bits >> 52) & 0x7FF)
        // x = m · 2^(field − 1075); the bit of m's lowest digit in the fixed point:
        let shift = field - 1075 + Self.fractionBits
        guard field != 0x7FF, shift <= 255 else { return addSpecial(x, field: field) }
        var m = (bits & 0x000F_FFFF_FFFF_FFFF) | (field == 0 ? 0 : 1 << 52)
        var position = shift + (field == 0 ? 1 : 0)
        if position < 0 {
            m = Self.rounded(m, dropping: -position)
            if m == 0 { return }
            position = 0
        }
        let k = position >> 6, offset = UInt64(position & 63)
        let low = m &<< offset, high = (m &>> 1) &>> (63 &- offset)
        if bits >> 63 == 0 { addShifted(low, high, at: k) } else { subtractShifted(low, high, at: k) }
    }

    /// Moves `small` into the fixed point (its units are bit 128 on, limb 2).
    mutating func foldSmall() {
        if small == 0 { return }
        let magnitude = small.magnitude
        if small > 0 { addShifted(magnitude, 0, at: 2) } else { subtractShifted(magnitude, 0, at: 2) }
        small = 0
    }

    /// The same sum with `small` folded in: what readers and the shard codec see.
    var normalized: ExactSum {
        var n = self
        n.foldSmall()
        return n
    }

    /// A tiny addend's digits with the lowest `drop` bits rounded off (to nearest, ties to even).
    static func rounded(_ m: UInt64, dropping drop: Int) -> UInt64 {
        if drop > 60 { return 0 }
        let kept = m >> UInt64(drop)
        let rest = m & ((1 << UInt64(drop)) - 1), half: UInt64 = 1 << UInt64(drop - 1)
        return kept + (rest > half || (rest == half && kept & 1 == 1) ? 1 : 0)
    }

    /// Adds `low` and `high` at limbs k and k + 1, carrying up. k ≤ 3: a position ≤ 255
    /// (`add`) or limb 2 (`foldSmall`), so limbs k and k + 1 are read unchecked.
    @inline(__always)
    mutating func addShifted(_ low: UInt64, _ high: UInt64, at k: Int) {
        var (s, c0) = limbs[unchecked: k].addingReportingOverflow(low)
        limbs[unchecked: k] = s
        let (t, c1) = limbs[unchecked: k &+ 1].addingReportingOverflow(high)
        (s, c0) = t.addingReportingOverflow(c0 ? 1 : 0)
        limbs[unchecked: k &+ 1] = s
        var carry = c0 || c1, i = k + 2
        while carry && i < Self.limbCount {
            (limbs[i], carry) = limbs[i].addingReportingOverflow(1)
            i += 1
        }
    }

    /// `addShifted`'s twin, borrowing (k ≤ 3 likewise).
    @inline(__always)
    mutating func subtractShifted(_ low: UInt64, _ high: UInt64, at k: Int) {
        var (s, b0) = limbs[unchecked: k].subtractingReportingOverflow(low)
        limbs[unchecked: k] = s
        let (t, b1) = limbs[unchecked: k &+ 1].subtractingReportingOverflow(high)
        (s, b0) = t.subtractingReportingOverflow(b0 ? 1 : 0)
        limbs[unchecked: k &+ 1] = s
        var borrow = b0 || b1, i = k + 2
        while borrow && i < Self.limbCount {
            (limbs[i], borrow) = limbs[i].subtractingReportingOverflow(1)
            i += 1
        }
    }

    mutating func addSpecial(_ x: Double, field: Int) {
        special += field == 0x7FF ? x : .nan
    }

    /// Adds another sum (of other devices, threads or shards).
    public mutating func add(_ other: ExactSum) {
        let (sum, overflow) = small.addingReportingOverflow(other.small)
        if overflow { foldSmall(); small = other.small; foldSmall() } else { small = sum }
        var carry = false
        for i in 0..<Self.limbCount {
            let (a, c1) = limbs[i].addingReportingOverflow(other.limbs[i])
            let (b, c2) = a.addingReportingOverflow(carry ? 1 : 0)
            limbs[i] = b
            carry = c1 || c2
        }
        special += other.special
    }

    /// The same exact sum (and the same non-finite part, NaN equal to NaN).
    public static func == (a: ExactSum, b: ExactSum) -> Bool {
        let a = a.normalized, b = b.normalized
        return a.special.bitPattern == b.special.bitPattern && (0..<limbCount).allSatisfy { a.limbs[$0] == b.limbs[$0] }
    }

    public static func += (a: inout ExactSum, b: Double) { a.add(b) }
    public static func += (a: inout ExactSum, b: ExactSum) { a.add(b) }

    public var isZero: Bool {
        let n = normalized
        return n.special == 0 && (0..<Self.limbCount).allSatisfy { n.limbs[$0] == 0 }
    }

    /// The sum, correctly rounded to a double.
    public var value: Double {
        if special != 0 { return special }
        let limbs = normalized.limbs
        let negative = limbs[Self.limbCount - 1] >> 63 == 1
        var magnitude = limbs
        if negative {
            // Two's complement: invert and add one.
            var carry = true
            for i in 0..<Self.limbCount {
                let (v, c) = (~magnitude[i]).addingReportingOverflow(carry ? 1 : 0)
                magnitude[i] = v
                carry = c
            }
        }
        var top = Self.limbCount - 1
        while top >= 0 && magnitude[top] == 0 { top -= 1 }
        if top < 0 { return 0 }
        let highest = top * 64 + 63 - magnitude[top].leadingZeroBitCount
        // The 64 bits from `highest` down, and whether any bit below them is set.
        let start = highest - 63
        var word: UInt64, sticky = false
        if start <= 0 {
            word = magnitude[0] << UInt64(-start)
        } else {
            let k = start >> 6, o = UInt64(start & 63)
            word = magnitude[k] >> o
            if o > 0 && k + 1 < Self.limbCount { word |= magnitude[k + 1] << (64 - o) }
            sticky = o > 0 && magnitude[k] & ((1 << o) - 1) != 0
            for i in 0..<k where magnitude[i] != 0 { sticky = true }
        }
        // 11 bits beyond a double's 53, plus the sticky bit in the last: rounding `word`
        // to a double then rounds the whole sum correctly.
        if sticky { word |= 1 }
        let result = Double(sign: .plus, exponent: start - Self.fractionBits, significand: Double(word))
        return negative ? -result : result
    }

    /// The sum as an unevaluated pair hi + lo with hi = `value` and lo the rounded rest:
    /// about 106 significant bits, for differences that cancel (`JointMoments`).
    public var doubleDouble: (hi: Double, lo: Double) {
        let hi = value
        guard hi.isFinite else { return (hi, 0) }
        var rest = self
        rest.add(-hi)
        return (hi, rest.value)
    }
}
