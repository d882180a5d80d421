import Foundation

/// The events of one device's simulation. Their priorities fix the order of events at the
/// same time: midnight first (an attempt at 00:00 belongs to the new day, MODEL.md §10
/// rule 5); then device state; a run's end before an open (an update that lands at t is
/// seen by an open at t); a session's end before the next open; the open before a wake
/// request at the same time (the app is then in the foreground); silent push last (a
/// publication, a server's send and a push's arrival, for server-side policies only).
enum SimEvent: UInt8, EventKind {
    case midnight = 0
    case chargeOn, chargeOff, lowPowerOff
    case screenOn, screenOff
    case runEnd
    case sessionEnd
    case open
    case request
    case publish, pushSend, pushArrive
    /// A wake the platform chose itself (`ios-fetch`).
    case systemWake
    // Content kinds and the processing task (docs/content.md).
    case serverJob, transferDone, processingDue, processingEnd, processingDeadline

    var code: UInt8 { rawValue }
    /// Only codes the queue was given come back, so the code needs no check.
    @inline(__always) init(code: UInt8) { self = unsafeBitCast(code, to: SimEvent.self) }

    var priority: UInt8 {
        switch self {
        case .midnight: 0
        case .chargeOn, .chargeOff, .lowPowerOff: 1
        case .screenOn, .screenOff: 2
        case .runEnd: 3
        case .sessionEnd: 4
        case .open: 5
        case .request: 6
        case .publish, .pushSend, .pushArrive, .systemWake: 7
        // A transfer's update lands like a run's; the server job reads after both.
        case .transferDone, .processingEnd: 3
        case .serverJob, .processingDeadline: 4
        case .processingDue: 2
        }
    }
}

/// What a device's simulation needs from the run around it.
struct DeviceRunContext: Sendable {
    let scenario: Scenario
    let seed: UInt64
    let horizon: SimTime
    /// Metrics count events at or after this time (MODEL.md §9 warm-up).
    let countFrom: SimTime
    let feed: NewsFeed
    /// Devices below this index log every event (events.csv).
    var traceDevices = 0
    /// Trace replay: device i's opens are the trace's device i (MODEL.md §3).
    var opensTrace: OpensTrace? = nil
    /// What the policy's `prepare` read for the run (`PolicyContext.prepared`).
    var prepared: (any Sendable)? = nil
    /// For tests: device i's own item stream (`sync`) when there is an entry for it, in
    /// place of one generated from the seed.
    var deviceFeeds: [NewsFeed] = []
}
