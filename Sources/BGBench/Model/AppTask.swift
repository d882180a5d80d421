import Foundation

/// How a background run ended (MODEL.md §6, §6.4 rule 3).
public enum RunStatus: UInt8, Sendable, CaseIterable {
    case newData, noData, failed, expired, killed
    public var label: String {
        switch self {
        case .newData: "new_data"
        case .noData: "no_data"
        case .failed: "failed"
        case .expired: "expired"
        case .killed: "killed"
        }
    }
}

/// One background run's course, decided when it starts (its counts and energy are booked
/// then, MODEL.md §6.4 rule 9) and taking effect when it ends.
struct RunExecution {
    var status: RunStatus
    /// From start to end, launch included; at most the runtime limit.
    var duration: SimTime
    var energy: Double
    var bytes: Double
    /// Network requests sent to the server (for its load).
    var requests: Int32
    /// Whether the fetch succeeded, so the cache holds everything published up to the start.
    var updatesCache: Bool { status == .newData || status == .noData }
}

/// Radio and CPU energy of network work (MODEL.md §8).
struct EnergyCosts {
    let e: EnergyModel

    /// Energy of `active` seconds of transfer on `network`, with promotion and tail.
    /// Requests of one run are sequential and share one tail (MODEL.md §8).
    @inline(__always)
    func radio(activeSeconds active: Double, on network: NetworkKind) -> Double {
        switch network {
        case .offline: return 0
        case .wifi: return active * e.wifiActiveW + e.wifiTail.seconds * e.wifiTailW
        case .lte, .nr5g:
            let lte = e.ltePromotion.seconds * e.ltePromotionW + active * e.lteActiveW + e.lteTail.seconds * e.lteTailW
            return network == .nr5g ? lte * e.nr5gPowerFactor : lte
        }
    }
}

/// The app's refresh task (MODEL.md §6, §6.4 rules 6–7; R1's rule 6 when `task` is
/// `lognormal`). Draws from the device's task stream only.
struct AppTask {
    private let app: AppModel
    private let net: NetworkModel
    private let energy: EnergyCosts
    private let limit: SimTime
    private var rng: RandomStream
    private let launchSeconds: Double

    init(scenario: Scenario, runtimeLimit: SimTime, rng: RandomStream) {
        app = scenario.app; net = scenario.network
        energy = EnergyCosts(e: scenario.energy)
        limit = runtimeLimit
        launchSeconds = scenario.app.launch.seconds
        self.rng = rng
    }

    /// Latency of one request on `network` (lognormal around the network's median).
    @inline(__always)
    mutating func latencySeconds(on network: NetworkKind) -> Double {
        let median: Double
        switch network {
        case .wifi: median = net.latencyMedianWifi.seconds
        case .lte: median = net.latencyMedianLte.seconds
        case .nr5g: median = net.latencyMedianNr5g.seconds
        case .offline: return 0
        }
        return rng.lognormal(median: median, sigma: net.latencySigma)
    }

    @inline(__always)
    func transferSeconds(bytes: Double, on network: NetworkKind) -> Double {
        let mbps: Double
        switch network {
        case .wifi: mbps = net.bandwidthWifiMbps
        case .lte: mbps = net.bandwidthLteMbps
        case .nr5g: mbps = net.bandwidthNr5gMbps
        case .offline: return 0
        }
        return bytes * 8 / (mbps * 1e6)
    }

    /// The payload of a refresh given the bytes of the items it misses.
    @inline(__always)
    func payloadBytes(missingBytes: Double, itemBytes: Double) -> Double {
        let fixed = app.payloadFixedKilobytes * 1000
        return app.sync == .delta ? fixed + missingBytes : fixed + Double(app.fullSetItems) * itemBytes
    }

    /// Runs the task from t on `network`; `newItems` is what the cache misses at t;
    /// `extraBytes` ride on the first request (catalog images). `limit`, if given,
    /// replaces the runtime limit for this run (a platform that stops a job early, as
    /// Android does when its quota runs out).
    @inline(__always)
    mutating func run(
        on network: NetworkKind, newItems: Int, newBytes: Double, itemBytes: Double,
        extraBytes: Double = 0, limit runLimit: SimTime? = nil
    ) -> RunExecution {
        let limit = runLimit ?? self.limit
        if app.task == .lognormal { return runLognormal(on: network, newItems: newItems, limit: limit) }
        let launch = app.launchJ
        let contentStatus: RunStatus = (newItems > 0 || app.status == .alwaysNewData) ? .newData : .noData
        if network == .offline {
            // The requests fail at once (MODEL.md §6.4 rule 6).
            return RunExecution(
                status: .failed, duration: Clock.ticks(seconds: launchSeconds), energy: launch, bytes: 0, requests: 0)
        }
        let requests = rng.bernoulli(app.secondRequestProbability) ? 2 : 1
        var active = 0.0, bytes = 0.0
        var status = contentStatus
        var hung = false
        var sent: Int32 = 0
        for r in 0..<requests {
            sent += 1
            let payload =
                r == 0
                ? payloadBytes(missingBytes: newBytes, itemBytes: itemBytes) + extraBytes
                : app.payloadFixedKilobytes * 1000
            let u = rng.uniform()
            active += latencySeconds(on: network)
            if u < app.failureProbability { status = .failed; break }
            if u < app.failureProbability + app.hangProbability { hung = true; break }
            active += transferSeconds(bytes: payload, on: network)
            bytes += payload
        }
        var duration = Clock.ticks(seconds: launchSeconds + active)
        if hung || duration > limit {
            // The limit counts from the start, launch included (rule 9); then rule 7.
            duration = limit
            active = max(0, Clock.seconds(limit) - launchSeconds)
            status = app.handlesExpiration ? .expired : .killed
        }
        return RunExecution(
            status: status, duration: duration,
            energy: launch + energy.radio(activeSeconds: active, on: network), bytes: bytes, requests: sent)
    }

    /// R1's run (MODEL.md §10 rules 6 and 8): d ~ lognormal; killed past the limit (energy
    /// with d = limit); else failed with its probability, or a success.
    private mutating func runLognormal(on network: NetworkKind, newItems: Int, limit: SimTime) -> RunExecution {
        var d = rng.lognormal(median: app.lognormalMedian.seconds, sigma: app.lognormalSigma)
        var status: RunStatus
        let limitSeconds = Clock.seconds(limit)
        if d > limitSeconds {
            d = limitSeconds
            status = app.handlesExpiration ? .expired : .killed
        } else if rng.bernoulli(app.lognormalFailureProbability) {
            status = .failed
        } else {
            status = (newItems > 0 || app.status == .alwaysNewData) ? .newData : .noData
        }
        return RunExecution(
            status: status, duration: Clock.ticks(seconds: d),
            energy: app.launchJ + energy.radio(activeSeconds: d, on: network), bytes: 0, requests: 1)
    }

    /// A foreground fetch at a stale open: one request for what the cache misses.
    /// Returns the user's wait and the energy (costed apart from background work).
    @inline(__always)
    mutating func foregroundFetch(
        on network: NetworkKind, missingBytes: Double, itemBytes: Double, extraBytes: Double = 0
    )
        -> (wait: SimTime, energy: Double, bytes: Double)
    {
        let payload = payloadBytes(missingBytes: missingBytes, itemBytes: itemBytes) + extraBytes
        let seconds = latencySeconds(on: network) + transferSeconds(bytes: payload, on: network)
        return (Clock.ticks(seconds: seconds), energy.radio(activeSeconds: seconds, on: network), payload)
    }

    /// A background transfer of `bytes` on `network` (catalog images): transfer time over
    /// the bandwidth with the radio's promotion and tail, no launch and no request latency
    /// (the system runs it, and its bytes dwarf a round trip). Returns the energy (J).
    func transferEnergy(bytes: Double, on network: NetworkKind) -> Double {
        energy.radio(activeSeconds: transferSeconds(bytes: bytes, on: network), on: network)
    }
}
