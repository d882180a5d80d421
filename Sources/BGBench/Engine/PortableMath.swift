/// `exp` and `log` from IEEE 754's basic operations alone (+, −, ×, ÷, exact scaling by
/// powers of two), for output that must be the same bytes on every machine (`bgbench
/// habits`): the platform's libm may differ from another's in a last bit, and a last bit
/// can move a rounded millisecond. Each basic operation is correctly rounded everywhere
/// and Swift does not fuse a multiply and an add unless asked, so these give the same
/// Double on every platform. Accuracy is a few units in the last place, not correct
/// rounding; nothing in the simulator's hot loop uses them.
package enum PortableMath {
    /// ln 2 in two parts: `ln2High` has its low bits zero, so k · ln2High is exact for
    /// |k| < 2¹¹.
    static let ln2High = 0x1.62E4_2FEE_0000_0p-1
    static let ln2Low = 0x1.A39E_F357_93C7_6p-33

    /// e^x; 0 below −745, +∞ above 709.78.
    package static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.78 { return .infinity }
        if x < -745 { return 0 }
        // x = k ln 2 + r with |r| ≤ ln 2 / 2; e^r by its Taylor series to r¹⁴.
        let k = (x / (ln2High + ln2Low)).rounded()
        let r = (x - k * ln2High) - k * ln2Low
        var term = 1.0, sum = 1.0
        for n in 1...14 {
            term = term * r / Double(n)
            sum += term
        }
        // Two steps so that 2^k stays a normal number down to e^−745.
        let half = Int(k) / 2
        return sum * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: Int(k) - half, significand: 1)
    }

    /// ln x for x > 0 (−∞ at 0, NaN below).
    package static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        // x = m · 2^e with m in [√½, √2): ln x = e ln 2 + 2 atanh(s), s = (m − 1)/(m + 1).
        var m = x.significand, e = Int(x.exponent)
        if m > 1.414_213_562_373_095_1 {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1), s2 = s * s
        // |s| ≤ 0.172: the series to s²³ leaves less than 10⁻¹⁹.
        var power = s, sum = 0.0
        for n in stride(from: 1, through: 23, by: 2) {
            sum += power / Double(n)
            power *= s2
        }
        let exponent = Double(e)
        return exponent * ln2High + (exponent * ln2Low + 2 * sum)
    }
}
