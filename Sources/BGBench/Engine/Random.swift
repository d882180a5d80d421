import Foundation

/// The purposes of a device's random streams. Every draw of device i comes from the stream
/// seeded by (run seed, i, purpose) alone (MODEL.md §2), so what one part of the model
/// draws never shifts another's draws, and every policy meets the same users.
public enum StreamPurpose: UInt64, Sendable {
    case population = 1  // archetype, rate, chronotype, bedtime, switches
    case opens = 2  // open times, sessions, force-quit (the user)
    case screen = 3  // phone use beyond the app
    case charging = 4
    case network = 5  // offline spells
    case task = 6  // background runs' latencies, failures, hangs
    case policy = 7  // a policy's own randomness (phase, Thompson sampling)
    case lowPower = 8  // whether the user turns Low Power Mode on
    case feed = 9  // the shared content feed (device index ignored)
    case foreground = 10  // foreground fetches at stale opens
    case utcOffset = 11  // the device's time zone (fleet server load only)
    case push = 12  // silent pushes' loss and delay on the way to the device
    case content = 13  // a device's own content stream (sync data)
    case transfer = 14  // background transfers' delays (catalog images)
    case processing = 15  // the processing task's first due time
    case habits = 16  // a habits-trace user (HabitUsers, `bgbench habits`), never a simulated device
    case bootstrap = 17  // the resampling of a suite's scorecard (`bgbench suite`), never a simulated device
}

/// SplitMix64 (Steele, Lea, Flood 2014): used only to expand seeds into generator states.
@usableFromInline
struct SplitMix64 {
    @usableFromInline var state: UInt64
    @inlinable init(_ seed: UInt64) { state = seed }
    @inlinable mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xoshiro256** (Blackman and Vigna 2018): the project's fast generator for hot paths,
/// about 2 ns a draw against GSL's 5–26 ns. GSL serves quantiles, fits and statistics.
public struct RandomStream: RandomNumberGenerator, @unchecked Sendable {
    @usableFromInline var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The ziggurat tables (immutable, shared by every stream: hence @unchecked Sendable).
    @usableFromInline let zig: UnsafeRawPointer

    /// The stream of `purpose` for device `device` in a run with seed `seed`.
    public init(seed: UInt64, device: UInt64, purpose: StreamPurpose) {
        // Hash the three coordinates one after another so that nearby seeds, devices and
        // purposes give unrelated states.
        var mix = SplitMix64(seed)
        var h = mix.next()
        mix = SplitMix64(h ^ (device &* 0xD1B5_4A32_D192_ED03))
        h = mix.next()
        mix = SplitMix64(h ^ (purpose.rawValue &* 0x8CB9_2BA7_2F3D_8DD7))
        s0 = mix.next(); s1 = mix.next(); s2 = mix.next(); s3 = mix.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
        zig = Ziggurat.tables
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) <<< 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 <<< 45
        return result
    }

    /// A uniform draw in [0, 1) with 53 random bits.
    @inlinable @inline(__always)
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform draw in (0, 1]: safe to take the logarithm of.
    @inlinable @inline(__always)
    public mutating func uniformPositive() -> Double {
        Double((next() >> 11) + 1) * 0x1.0p-53
    }

    /// True with probability p.
    @inlinable @inline(__always)
    public mutating func bernoulli(_ p: Double) -> Bool { uniform() < p }

    /// A lognormal draw with the given median and log-scale standard deviation.
    @inlinable @inline(__always)
    public mutating func lognormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * standardNormal())
    }

    /// A Poisson draw by inversion; for the small means the model uses (a few per day).
    @inlinable
    public mutating func poisson(mean: Double) -> Int {
        if mean <= 0 { return 0 }
        var k = 0, p = exp(-mean), cdf = p
        let u = uniform()
        while u > cdf && k < 10_000 {
            k += 1
            p *= mean / Double(k)
            cdf += p
        }
        return k
    }

    /// A uniform integer in 0..<n (n > 0), by Lemire's multiply-shift (bias below 2^-64·n).
    @inlinable
    public mutating func index(below n: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(n)).high)
    }
}

infix operator <<< : BitwiseShiftPrecedence
@inlinable @inline(__always)
func <<< (x: UInt64, k: UInt64) -> UInt64 { (x << k) | (x >> (64 &- k)) }
