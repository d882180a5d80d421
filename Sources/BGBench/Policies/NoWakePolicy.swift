/// `none` (MODEL.md §7): the baseline. Never asks for background work, so every stale
/// open fetches in the foreground.
public struct NoWakePolicy: WakePolicy {
    public static let name = "none"
    public static let summary = "baseline: no background work; every stale open fetches in the foreground"
    public static let callbacks: PolicyCallbacks = []
    public init(_ context: PolicyContext) {}
}
