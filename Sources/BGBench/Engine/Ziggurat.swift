import Foundation

/// Marsaglia and Tsang's ziggurat tables (J. Stat. Software 5(8), 2000) for the standard
/// normal (128 layers) and the standard exponential (256 layers), built once per process
/// into one immutable block that every ``RandomStream`` points at (so a draw reads the
/// tables without a lazy-global check). Draws take the layer index from the low bits and
/// the value from the high 32 bits of one 64-bit output, so index and value are
/// independent (Doornik's remark on the original's correlation).
@usableFromInline
enum Ziggurat {
    /// Byte offsets of the tables in the block.
    @usableFromInline static let kn = 0, ke = 512, wn = 1536, fn = 2560, we = 3584, fe = 5632, size = 7680
    /// Right edge of the base layer: normal, exponential.
    @usableFromInline static let rn = 3.442619855899
    @usableFromInline static let re = 7.697117470131487

    nonisolated(unsafe) static let tables: UnsafeRawPointer = {
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        func setK(_ table: Int, _ i: Int, _ v: Double) {
            block.storeBytes(of: UInt32(v), toByteOffset: table + 4 * i, as: UInt32.self)
        }
        func set(_ table: Int, _ i: Int, _ v: Double) {
            block.storeBytes(of: v, toByteOffset: table + 8 * i, as: Double.self)
        }
        let m1 = 2147483648.0, m2 = 4294967296.0
        var dn = rn, tn = dn
        let vn = 9.91256303526217e-3
        var q = vn / exp(-0.5 * dn * dn)
        setK(kn, 0, (dn / q) * m1); setK(kn, 1, 0)
        set(wn, 0, q / m1); set(wn, 127, dn / m1)
        set(fn, 0, 1); set(fn, 127, exp(-0.5 * dn * dn))
        for i in stride(from: 126, through: 1, by: -1) {
            dn = (-2 * log(vn / dn + exp(-0.5 * dn * dn))).squareRoot()
            setK(kn, i + 1, (dn / tn) * m1)
            tn = dn
            set(fn, i, exp(-0.5 * dn * dn))
            set(wn, i, dn / m1)
        }
        var de = re, te = de
        let ve = 3.949659822581572e-3
        q = ve / exp(-de)
        setK(ke, 0, (de / q) * m2); setK(ke, 1, 0)
        set(we, 0, q / m2); set(we, 255, de / m2)
        set(fe, 0, 1); set(fe, 255, exp(-de))
        for i in stride(from: 254, through: 1, by: -1) {
            de = -log(ve / de + exp(-de))
            setK(ke, i + 1, (de / te) * m2)
            te = de
            set(fe, i, exp(-de))
            set(we, i, de / m2)
        }
        return UnsafeRawPointer(block)
    }()
}

extension RandomStream {
    @inlinable @inline(__always)
    func table(_ offset: Int, _ i: Int) -> Double { zig.load(fromByteOffset: offset + 8 * i, as: Double.self) }
    @inlinable @inline(__always)
    func limit(_ offset: Int, _ i: Int) -> UInt32 { zig.load(fromByteOffset: offset + 4 * i, as: UInt32.self) }

    /// A standard exponential draw by the ziggurat: one 64-bit draw and a table lookup
    /// in about 99 % of calls.
    @inlinable @inline(__always)
    public mutating func standardExponential() -> Double {
        var u = next()
        var i = Int(u & 255), j = UInt32(truncatingIfNeeded: u >> 32)
        if j < limit(Ziggurat.ke, i) { return Double(j) * table(Ziggurat.we, i) }
        while true {
            if i == 0 { return Ziggurat.re - log(uniformPositive()) }
            let x = Double(j) * table(Ziggurat.we, i)
            let f = table(Ziggurat.fe, i)
            if f + uniform() * (table(Ziggurat.fe, i - 1) - f) < exp(-x) { return x }
            u = next()
            i = Int(u & 255); j = UInt32(truncatingIfNeeded: u >> 32)
            if j < limit(Ziggurat.ke, i) { return Double(j) * table(Ziggurat.we, i) }
        }
    }

    /// A standard normal draw by the ziggurat.
    @inlinable @inline(__always)
    public mutating func standardNormal() -> Double {
        var u = next()
        var i = Int(u & 127), h = Int32(truncatingIfNeeded: u >> 32)
        if h.magnitude < limit(Ziggurat.kn, i) { return Double(h) * table(Ziggurat.wn, i) }
        while true {
            if i == 0 {
                // The tail beyond r, by Marsaglia's method.
                var x: Double, y: Double
                repeat {
                    x = -log(uniformPositive()) / Ziggurat.rn
                    y = -log(uniformPositive())
                } while y + y < x * x
                return h > 0 ? Ziggurat.rn + x : -Ziggurat.rn - x
            }
            let x = Double(h) * table(Ziggurat.wn, i)
            let f = table(Ziggurat.fn, i)
            if f + uniform() * (table(Ziggurat.fn, i - 1) - f) < exp(-0.5 * x * x) { return x }
            u = next()
            i = Int(u & 127); h = Int32(truncatingIfNeeded: u >> 32)
            if h.magnitude < limit(Ziggurat.kn, i) { return Double(h) * table(Ziggurat.wn, i) }
        }
    }
}
