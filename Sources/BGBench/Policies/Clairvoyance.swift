/// Knowledge of the future that only the `oracle` bound may use (MODEL.md §7): the user's
/// future opens (from a copy of the user's own generator, so they are exactly the opens
/// that will happen) and the content feed. It knows nothing of run outcomes.
public struct Clairvoyance {
    private var opens: UserOpens?
    private var upcoming: SimTime = Clock.never
    private let feed: NewsFeed?

    init(opens: UserOpens?, feed: NewsFeed?) {
        self.opens = opens
        self.feed = feed
        if var o = opens { upcoming = o.next().time; self.opens = o }
    }

    /// No knowledge at all (for policies built outside a simulation, e.g. in tests).
    public static var none: Clairvoyance { Clairvoyance(opens: nil, feed: nil) }

    /// The time of the first open at or after t, or `Clock.never`.
    public mutating func nextOpen(atOrAfter t: SimTime) -> SimTime {
        guard var o = opens else { return Clock.never }
        while upcoming < t { upcoming = o.next().time }
        opens = o
        return upcoming
    }

    /// The publication time of the first item after c, or `Clock.never`.
    public func firstItem(after c: SimTime) -> SimTime {
        guard let times = feed?.times else { return Clock.never }
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] <= c { lo = mid + 1 } else { hi = mid }
        }
        return lo < times.count ? times[lo] : Clock.never
    }
}
