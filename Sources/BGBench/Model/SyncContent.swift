// The `sync` content kind's parameters (`content.sync`; docs/content.md). The simulation
// of the server job is in Simulation/DeviceSimulation.swift.

/// A fitness-style upload (MODEL.md §5): the device produces items (samples, workouts) by
/// the item fields of `content`, from its own stream; a run or an open uploads what the
/// server lacks (delta); a daily server job reads the server's copy.
public struct SyncContentParameters: ParameterSet {
    public init() {}

    public var serverJobAt = TimeSpan.hours(4)
    public var targetAge = TimeSpan.hours(4)
}
extension SyncContentParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.serverJobAt, "server_job_at", in: .hours(0)...(.hours(24)),
                "`sync`: time of day (UTC; device-local = UTC + the device's offset) of the daily server job that reads the uploads; assumption: nightly batch jobs run in the small hours"
            ),
            .duration(
                \.targetAge, "target_age", in: .hours(0)...(.days(365)),
                "`sync`: a server job is on time if every item older than this was uploaded; assumption: the fitness preset's ~4 h sync interval"
            ),
        ]
    }
}
