/// SHA-256 (FIPS 180-4), to fingerprint scenario files in reports; CryptoKit is not on Linux.
package enum SHA256 {
    /// The digest of `bytes` as 64 lowercase hex digits.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest(bytes).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// The 32-byte digest of `bytes`.
    static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(Array(bytes))
        return hasher.finish()
    }

    /// A digest fed in pieces (a report file written as it is produced, `RowSpool`): the
    /// same digest as of the pieces joined.
    package struct Hasher {
        private var h: [UInt32] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ]
        /// The bytes after the last whole 64-byte block (fewer than 64).
        private var tail: [UInt8] = []
        /// Every byte fed so far.
        private(set) var count: UInt64 = 0

        package init() {}

        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            count &+= UInt64(bytes.count)
            var rest = bytes[...]
            if !tail.isEmpty {
                let take = min(64 - tail.count, rest.count)
                tail += rest.prefix(take)
                rest = rest.dropFirst(take)
                guard tail.count == 64 else { return }
                tail.withUnsafeBytes { compress(UnsafeRawBufferPointer(rebasing: $0[...])) }
                tail.removeAll(keepingCapacity: true)
            }
            let whole = rest.count - rest.count % 64
            if whole > 0 {
                compress(UnsafeRawBufferPointer(rebasing: rest.prefix(whole)))
            }
            tail += rest.dropFirst(whole)
        }

        package mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

        /// The 32-byte digest of every byte fed.
        package mutating func finish() -> [UInt8] {
            let bitCount = count &* 8
            var last = tail
            last.append(0x80)
            last += [UInt8](repeating: 0, count: (120 - last.count % 64) % 64)
            last += (0..<8).map { UInt8(truncatingIfNeeded: bitCount >> (56 - 8 * UInt64($0))) }
            last.withUnsafeBytes { compress($0) }
            tail = []
            return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
        }

        /// The digest as 64 lowercase hex digits.
        package mutating func hex() -> String {
            let digits = Array("0123456789abcdef")
            return String(finish().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
        }

        /// Runs the compression function over whole 64-byte blocks.
        private mutating func compress(_ m: UnsafeRawBufferPointer) {
            var h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], h4 = h[4], h5 = h[5], h6 = h[6], h7 = h[7]
            var w = InlineArray<64, UInt32>(repeating: 0)
            for block in stride(from: 0, to: m.count, by: 64) {
                for t in 0..<16 {
                    let i = block + 4 * t
                    w[t] = UInt32(m[i]) << 24 | UInt32(m[i + 1]) << 16 | UInt32(m[i + 2]) << 8 | UInt32(m[i + 3])
                }
                for t in 16..<64 {
                    let s0 = SHA256.rotr(w[t - 15], 7) ^ SHA256.rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                    let s1 = SHA256.rotr(w[t - 2], 17) ^ SHA256.rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = (h0, h1, h2, h3, h4, h5, h6, h7)
                for t in 0..<64 {
                    let t1 =
                        hh &+ (SHA256.rotr(e, 6) ^ SHA256.rotr(e, 11) ^ SHA256.rotr(e, 25)) &+ ((e & f) ^ (~e & g))
                        &+ SHA256.k[t] &+ w[t]
                    let t2 =
                        (SHA256.rotr(a, 2) ^ SHA256.rotr(a, 13) ^ SHA256.rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= hh
            }
            h = [h0, h1, h2, h3, h4, h5, h6, h7]
        }
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}
