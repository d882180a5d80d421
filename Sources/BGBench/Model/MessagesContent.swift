// The `messages` content kind's parameters (`content.messages`; docs/content.md).

/// A messaging app's inbox (MODEL.md §5: "per-device, bursty"): each device receives its own
/// messages, `items_per_day` of them on average by the `hourly_weights`, in conversations:
/// a conversation starts as a non-homogeneous Poisson process and brings a geometric number
/// of messages (mean `burst_mean`) with exponential gaps (mean `burst_gap_mean`).
public struct MessagesParameters: ParameterSet {
    public init() {}

    public var burstMean = 3.0
    public var burstGapMean = TimeSpan.minutes(1)
}
extension MessagesParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .number(
                \.burstMean, "burst_mean", "messages", in: 1...1000,
                "`messages`: mean messages per conversation (geometric count, at least 1); assumption: chats come in short exchanges, no public figure for an average app"
            ),
            .duration(
                \.burstGapMean, "burst_gap_mean", in: .seconds(0)...(.days(1)),
                "`messages`: mean gap between a conversation's messages (exponential); assumption: replies within about a minute"
            ),
        ]
    }
}
