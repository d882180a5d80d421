/// The tally's former stored fields, kept as deprecated aliases so code written against
/// them (other branches, researchers' packages) still builds: use the subscripts by
/// ``Quantity`` instead (`tally[.runs]`, `tally[ticks: .staleness]`,
/// `tally[amount: .backgroundEnergy]`). Delete once nothing uses them.
extension DeviceTally {
    @available(*, deprecated, message: "use tally[.opens]")
    public var opens: Int { get { self[.opens] } set { self[.opens] = newValue } }
    @available(*, deprecated, message: "use tally[.freshOpens]")
    public var freshOpens: Int { get { self[.freshOpens] } set { self[.freshOpens] = newValue } }
    @available(*, deprecated, message: "use tally[ticks: .staleness]")
    public var stalenessTicks: SimTime { get { self[ticks: .staleness] } set { self[ticks: .staleness] = newValue } }
    @available(*, deprecated, message: "use tally[ticks: .age]")
    public var ageTicks: SimTime { get { self[ticks: .age] } set { self[ticks: .age] = newValue } }
    @available(*, deprecated, message: "use tally[.foregroundFetches]")
    public var foregroundFetches: Int { get { self[.foregroundFetches] } set { self[.foregroundFetches] = newValue } }
    @available(*, deprecated, message: "use tally[ticks: .foregroundWait]")
    public var foregroundWaitTicks: SimTime { get { self[ticks: .foregroundWait] } set { self[ticks: .foregroundWait] = newValue } }
    @available(*, deprecated, message: "use tally[.foregroundFailures]")
    public var foregroundFailures: Int { get { self[.foregroundFailures] } set { self[.foregroundFailures] = newValue } }
    @available(*, deprecated, message: "use tally[amount: .foregroundEnergy]")
    public var foregroundEnergy: Double { get { self[amount: .foregroundEnergy] } set { self[amount: .foregroundEnergy] = newValue } }
    @available(*, deprecated, message: "use tally[.requested]")
    public var requested: Int { get { self[.requested] } set { self[.requested] = newValue } }
    @available(*, deprecated, message: "use tally[.replaced]")
    public var replaced: Int { get { self[.replaced] } set { self[.replaced] = newValue } }
    @available(*, deprecated, message: "use tally[.pending]")
    public var pendingAtHorizon: Int { get { self[.pending] } set { self[.pending] = newValue } }
    @available(*, deprecated, message: "use tally[.runs]")
    public var runs: Int { get { self[.runs] } set { self[.runs] = newValue } }
    @available(*, deprecated, message: "use tally[.throttleEvents]")
    public var throttleEvents: Int { get { self[.throttleEvents] } set { self[.throttleEvents] = newValue } }
    @available(*, deprecated, message: "use tally[amount: .backgroundEnergy]")
    public var backgroundEnergy: Double { get { self[amount: .backgroundEnergy] } set { self[amount: .backgroundEnergy] = newValue } }
    @available(*, deprecated, message: "use tally[amount: .cellularBytes]")
    public var cellularBytes: Double { get { self[amount: .cellularBytes] } set { self[amount: .cellularBytes] = newValue } }
    @available(*, deprecated, message: "use tally[amount: .wifiBytes]")
    public var wifiBytes: Double { get { self[amount: .wifiBytes] } set { self[amount: .wifiBytes] = newValue } }
    @available(*, deprecated, message: "use tally[ticks: .zeroBattery]")
    public var ticksAtZeroBattery: SimTime { get { self[ticks: .zeroBattery] } set { self[ticks: .zeroBattery] = newValue } }
    @available(*, deprecated, message: "use tally[.pushSent]")
    public var pushSent: Int { get { self[.pushSent] } set { self[.pushSent] = newValue } }
    @available(*, deprecated, message: "use tally[.pushLost]")
    public var pushLost: Int { get { self[.pushLost] } set { self[.pushLost] = newValue } }
    @available(*, deprecated, message: "use tally[.pushGated]")
    public var pushGated: Int { get { self[.pushGated] } set { self[.pushGated] = newValue } }
    @available(*, deprecated, message: "use tally[.pushThrottled]")
    public var pushThrottled: Int { get { self[.pushThrottled] } set { self[.pushThrottled] = newValue } }
    @available(*, deprecated, message: "use tally[.pushRuns]")
    public var pushRuns: Int { get { self[.pushRuns] } set { self[.pushRuns] = newValue } }
    @available(*, deprecated, message: "use tally[.events]")
    public var events: Int { get { self[.events] } set { self[.events] = newValue } }
    @available(*, deprecated, message: "use tally[.serverJobs]")
    public var serverJobs: Int { get { self[.serverJobs] } set { self[.serverJobs] = newValue } }
    @available(*, deprecated, message: "use tally[ticks: .serverLag]")
    public var serverLagTicks: SimTime { get { self[ticks: .serverLag] } set { self[ticks: .serverLag] = newValue } }
    @available(*, deprecated, message: "use tally[.serverOnTime]")
    public var serverOnTime: Int { get { self[.serverOnTime] } set { self[.serverOnTime] = newValue } }
    @available(*, deprecated, message: "use tally[.transfers]")
    public var transfers: Int { get { self[.transfers] } set { self[.transfers] = newValue } }
    @available(*, deprecated, message: "use tally[amount: .cellularImageBytes]")
    public var cellularImageBytes: Double { get { self[amount: .cellularImageBytes] } set { self[amount: .cellularImageBytes] = newValue } }
    @available(*, deprecated, message: "use tally[.processingCompleted]")
    public var processingCompleted: Int { get { self[.processingCompleted] } set { self[.processingCompleted] = newValue } }
    @available(*, deprecated, message: "use tally[.processingOnTime]")
    public var processingOnTime: Int { get { self[.processingOnTime] } set { self[.processingOnTime] = newValue } }
    @available(*, deprecated, message: "use tally[.processingMissed]")
    public var processingMissed: Int { get { self[.processingMissed] } set { self[.processingMissed] = newValue } }
    @available(*, deprecated, message: "use tally[.processingInterruptions]")
    public var processingInterruptions: Int { get { self[.processingInterruptions] } set { self[.processingInterruptions] = newValue } }
    @available(*, deprecated, message: "use tally[amount: .processingEnergy]")
    public var processingEnergy: Double { get { self[amount: .processingEnergy] } set { self[amount: .processingEnergy] = newValue } }
    @available(*, deprecated, message: "use tally[.denied]")
    public var deniedTotal: Int { self[.denied] }
}
