import Foundation

/// Marsaglia and Tsang's ziggurat tables (J. Stat. Software 5(8), 2000) for the standard
/// normal (128 layers) and the standard exponential (256 layers). Built once per process.
/// Draws take the layer index from the low bits and the value from the high 32 bits of
/// one 64-bit output, so index and value are independent (Doornik's remark on the
/// original's correlation).
@usableFromInline
struct ZigguratTables: Sendable {
    @usableFromInline var kn = [UInt32](repeating: 0, count: 128)
    @usableFromInline var wn = [Double](repeating: 0, count: 128)
    @usableFromInline var fn = [Double](repeating: 0, count: 128)
    @usableFromInline var ke = [UInt32](repeating: 0, count: 256)
    @usableFromInline var we = [Double](repeating: 0, count: 256)
    @usableFromInline var fe = [Double](repeating: 0, count: 256)

    /// Right edge of the base layer: normal, exponential.
    @usableFromInline static let rn = 3.442619855899
    @usableFromInline static let re = 7.697117470131487

    init() {
        let m1 = 2147483648.0, m2 = 4294967296.0
        var dn = Self.rn, tn = dn
        let vn = 9.91256303526217e-3
        var q = vn / exp(-0.5 * dn * dn)
        kn[0] = UInt32((dn / q) * m1); kn[1] = 0
        wn[0] = q / m1; wn[127] = dn / m1
        fn[0] = 1; fn[127] = exp(-0.5 * dn * dn)
        for i in stride(from: 126, through: 1, by: -1) {
            dn = (-2 * log(vn / dn + exp(-0.5 * dn * dn))).squareRoot()
            kn[i + 1] = UInt32((dn / tn) * m1)
            tn = dn
            fn[i] = exp(-0.5 * dn * dn)
            wn[i] = dn / m1
        }
        var de = Self.re, te = de
        let ve = 3.949659822581572e-3
        q = ve / exp(-de)
        ke[0] = UInt32((de / q) * m2); ke[1] = 0
        we[0] = q / m2; we[255] = de / m2
        fe[0] = 1; fe[255] = exp(-de)
        for i in stride(from: 254, through: 1, by: -1) {
            de = -log(ve / de + exp(-de))
            ke[i + 1] = UInt32((de / te) * m2)
            te = de
            fe[i] = exp(-de)
            we[i] = de / m2
        }
    }

    @usableFromInline static let shared = ZigguratTables()
}

extension RandomStream {
    /// A standard exponential draw by the ziggurat: one 64-bit draw and a table lookup
    /// in about 99 % of calls.
    @inlinable @inline(__always)
    public mutating func standardExponential() -> Double {
        let z = ZigguratTables.shared
        var u = next()
        var i = Int(u & 255), j = UInt32(truncatingIfNeeded: u >> 32)
        if j < z.ke[i] { return Double(j) * z.we[i] }
        while true {
            if i == 0 { return ZigguratTables.re - log(uniformPositive()) }
            let x = Double(j) * z.we[i]
            if z.fe[i] + uniform() * (z.fe[i - 1] - z.fe[i]) < exp(-x) { return x }
            u = next()
            i = Int(u & 255); j = UInt32(truncatingIfNeeded: u >> 32)
            if j < z.ke[i] { return Double(j) * z.we[i] }
        }
    }

    /// A standard normal draw by the ziggurat.
    @inlinable @inline(__always)
    public mutating func standardNormal() -> Double {
        let z = ZigguratTables.shared
        var u = next()
        var i = Int(u & 127), h = Int32(truncatingIfNeeded: u >> 32)
        if h.magnitude < z.kn[i] { return Double(h) * z.wn[i] }
        while true {
            if i == 0 {
                // The tail beyond r, by Marsaglia's method.
                var x: Double, y: Double
                repeat {
                    x = -log(uniformPositive()) / ZigguratTables.rn
                    y = -log(uniformPositive())
                } while y + y < x * x
                return h > 0 ? ZigguratTables.rn + x : -ZigguratTables.rn - x
            }
            let x = Double(h) * z.wn[i]
            if z.fn[i] + uniform() * (z.fn[i - 1] - z.fn[i]) < exp(-0.5 * x * x) { return x }
            u = next()
            i = Int(u & 127); h = Int32(truncatingIfNeeded: u >> 32)
            if h.magnitude < z.kn[i] { return Double(h) * z.wn[i] }
        }
    }
}
