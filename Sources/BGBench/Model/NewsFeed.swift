/// The one news feed all devices read (MODEL.md §5, §10 rule 4): items arrive as a
/// non-homogeneous Poisson process with a daily rate and hourly weights, and have
/// lognormal sizes. Generated once per run from the feed's own stream, read-only after.
/// The same type holds a device's own item stream (`sync`, `messages`), generated at the
/// device's start.
public final class NewsFeed: Sendable {
    /// Publication times, ascending.
    public let times: [SimTime]
    /// Item i's time and the total size of items 0..<i (so a range's bytes is O(1)), side
    /// by side: a device reads both at once, in one cache line (they were two arrays, and
    /// the sizes missed the cache at every open). One more entry closes it: the time
    /// `Clock.never` and the total size of all, so a scan needs no bounds check.
    let items: [Item]

    struct Item {
        let time: SimTime
        let bytesBefore: Double
    }

    /// The total size of all items.
    var totalBytes: Double { items[items.count - 1].bytesBefore }

    public convenience init(content: ContentModel, days: Int, seed: UInt64) {
        self.init(content: content, days: days, rng: RandomStream(seed: seed, device: 0, purpose: .feed))
    }

    /// One device's own stream of items by the same rules (`sync`: the data the device
    /// produces), from its `content` stream.
    convenience init(content: ContentModel, days: Int, seed: UInt64, device: Int) {
        self.init(
            content: content, days: days, rng: RandomStream(seed: seed, device: UInt64(device), purpose: .content))
    }

    private convenience init(content: ContentModel, days: Int, rng: RandomStream) {
        var rng = rng
        let times =
            content.kind == .messages
            ? Self.messageTimes(content, days: days, rng: &rng)
            : Self.poissonTimes(content, days: days, rng: &rng)
        var cumulative = [0.0]
        cumulative.reserveCapacity(times.count + 1)
        for _ in times {
            let bytes = 1000 * rng.lognormal(median: content.itemSizeMedianKilobytes, sigma: content.itemSizeSigma)
            cumulative.append(cumulative[cumulative.count - 1] + bytes)
        }
        self.init(times: times, cumulativeBytes: cumulative)
    }

    /// Items of a non-homogeneous Poisson process: `items_per_day` by the hourly weights.
    private static func poissonTimes(_ content: ContentModel, days: Int, rng: inout RandomStream) -> [SimTime] {
        let total = content.hourlyWeights.reduce(0, +)
        var times: [SimTime] = []
        times.reserveCapacity(Int(content.itemsPerDay * Double(days) * 1.1) + 16)
        var hourTimes: [SimTime] = []
        for day in 0..<days {
            for hour in 0..<24 {
                let mean = total > 0 ? content.itemsPerDay * content.hourlyWeights[hour] / total : 0
                // Given the count, a Poisson process's times are uniform in the hour.
                let n = rng.poisson(mean: mean)
                let start = SimTime(day) * Clock.day + SimTime(hour) * Clock.hour
                hourTimes.removeAll(keepingCapacity: true)
                for _ in 0..<n { hourTimes.append(start + SimTime(rng.index(below: Int(Clock.hour)))) }
                times.append(contentsOf: hourTimes.sorted())
            }
        }
        return times
    }

    /// A device's messages (`messages`): conversations start as a non-homogeneous Poisson
    /// process (`items_per_day / burst_mean` a day by the hourly weights) and each brings a
    /// geometric number of messages, mean `burst_mean`, with exponential gaps. A
    /// conversation may run past the last day: its messages there are never read.
    private static func messageTimes(_ content: ContentModel, days: Int, rng: inout RandomStream) -> [SimTime] {
        let m = content.messages
        let total = content.hourlyWeights.reduce(0, +)
        let conversationsPerDay = content.itemsPerDay / m.burstMean
        let more = 1 - 1 / m.burstMean  // P(another message): a geometric count, mean burst_mean
        let gapMean = Double(m.burstGapMean.ticks)
        var times: [SimTime] = []
        times.reserveCapacity(Int(content.itemsPerDay * Double(days) * 1.2) + 16)
        for day in 0..<days {
            for hour in 0..<24 {
                let mean = total > 0 ? conversationsPerDay * content.hourlyWeights[hour] / total : 0
                let start = SimTime(day) * Clock.day + SimTime(hour) * Clock.hour
                for _ in 0..<rng.poisson(mean: mean) {
                    var t = start + SimTime(rng.index(below: Int(Clock.hour)))
                    times.append(t)
                    while rng.bernoulli(more) {
                        t += SimTime(gapMean * rng.standardExponential())
                        times.append(t)
                    }
                }
            }
        }
        return times.sorted()
    }

    private init(times: [SimTime], cumulativeBytes: [Double]) {
        self.times = times
        items = cumulativeBytes.indices.map {
            Item(time: $0 < times.count ? times[$0] : Clock.never, bytesBefore: cumulativeBytes[$0])
        }
    }

    /// A feed with the given item times (ascending) and sizes, for tests and trace replay.
    public convenience init(times: [SimTime], itemBytes: Double = 5000) {
        precondition(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "feed times must ascend")
        self.init(times: times, cumulativeBytes: (0...times.count).map { Double($0) * itemBytes })
    }
}

/// One device's read position in the shared feed. The cache time c only moves forward
/// and queries come in time order, so every lookup is an amortised O(1) forward scan.
struct FeedCursor {
    let feed: NewsFeed
    /// Index of the first item published after the cache time c.
    private(set) var firstMissing = 0
    /// Index of the first item published after the latest query time.
    private var firstFuture = 0

    init(feed: NewsFeed) { self.feed = feed }

    /// Moves the cache time to c (items published at or before c are held; c is before
    /// `Clock.never`, the closing entry's time).
    @inline(__always)
    mutating func cache(upTo c: SimTime) {
        // The scans stop at the closing entry (`Clock.never`), so the index stays in bounds
        // and cannot overflow.
        firstMissing = feed.items.withUnsafeBufferPointer { items in
            var i = firstMissing
            while items[i].time <= c { i &+= 1 }
            return i
        }
    }

    /// The publication time of the first item the cache misses, or `Clock.never`.
    @inline(__always)
    var firstMissingTime: SimTime {
        feed.items.withUnsafeBufferPointer { $0[firstMissing].time }
    }

    /// Number and total bytes of items published in (c, t] (t before `Clock.never`).
    @inline(__always)
    mutating func missing(upTo t: SimTime) -> (count: Int, bytes: Double) {
        if firstFuture < firstMissing { firstFuture = firstMissing }
        return feed.items.withUnsafeBufferPointer { items in
            var i = firstFuture
            while items[i].time <= t { i &+= 1 }
            firstFuture = i
            return (i &- firstMissing, items[i].bytesBefore - items[firstMissing].bytesBefore)
        }
    }
}
