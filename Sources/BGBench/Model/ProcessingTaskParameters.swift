// The processing task's parameters (`app.processing`; docs/content.md). The task itself
// is `ProcessingTask` in Model/DeferredWork.swift.

/// A processing task (BGProcessingTask, MODEL.md §6; docs/content.md): deferrable work,
/// minutes long, due every `interval`; the platform runs it only while the device is idle
/// (screen off) and its requirements hold, interrupts it when the screen comes on or the
/// phone is unplugged, and resumes it later where it stopped.
public struct ProcessingTaskParameters: ParameterSet {
    public init() {}

    public var enabled = false
    public var interval = TimeSpan.days(7)
    public var work = TimeSpan.minutes(5)
    public var requiresPower = true
    public var requiresNetwork = false
    public var deadline = TimeSpan.days(1)
    public var powerW = 1.0
}
extension ProcessingTaskParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .flag(
                \.enabled, "enabled",
                "a processing task (BGProcessingTask) beside the refresh ([content.md](content.md)); MODEL.md §6"),
            .duration(
                \.interval, "interval", in: .minutes(15)...(.days(365)),
                "the next instance is due this long after one completes; the first at a uniform time in the first interval; assumption: weekly database maintenance"
            ),
            .duration(
                \.work, "work", in: .seconds(1)...(.days(1)),
                "running time needed, in device time; interrupted work is kept (the app checkpoints); assumption: a few minutes of database maintenance (MODEL.md §6: minutes long)"
            ),
            .flag(
                \.requiresPower, "requires_power",
                "runs only while charging (`BGProcessingTaskRequest.requiresExternalPower`) and is interrupted by unplugging"
            ),
            .flag(
                \.requiresNetwork, "requires_network",
                "runs only when not offline (`BGProcessingTaskRequest.requiresNetworkConnectivity`), checked when it starts"
            ),
            .duration(
                \.deadline, "deadline", in: .minutes(1)...(.days(365)),
                "an instance is on time if it completes within this after it became due; assumption"),
            .number(
                \.powerW, "power_w", "W", in: 0...100,
                "power drawn while it runs (booked to the battery, reported apart from background runs); assumption: about one busy core"
            ),
        ]
    }
}
