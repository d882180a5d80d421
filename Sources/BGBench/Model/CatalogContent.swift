// The `catalog` content kind's parameters (`content.catalog`; docs/content.md). Transfers
// are simulated in Model/DeferredWork.swift and Simulation/DeviceSimulation.swift.

/// An e-commerce catalog (MODEL.md §5: a larger payload that changes hourly): each item of
/// the shared feed (a product change) brings images; optionally Wi-Fi-only, optionally
/// downloaded by a background transfer that completes after the run, at the system's
/// discretion (as a background URLSession does).
public struct CatalogParameters: ParameterSet {
    public init() {}

    public var imageKilobytesPerItem = 250.0
    public var wifiOnly = false
    public var backgroundTransfer = false
    public var transferDelayMedian = TimeSpan.minutes(30)
    public var transferDelaySigma = 1.0
    public var transferRetry = TimeSpan.minutes(15)
}
extension CatalogParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .number(
                \.imageKilobytesPerItem, "image_kilobytes_per_item", "kB", in: 0...1_000_000,
                "`catalog`: image bytes each new item brings (a full refresh: `app.full_set_items` items' worth); assumption: a product's images after app-side resizing"
            ),
            .flag(
                \.wifiOnly, "wifi_only",
                "`catalog`: images only on Wi-Fi (a user's \"download images on Wi-Fi only\" setting); on cellular a run or a stale open fetches the metadata alone and the cache stays stale"
            ),
            .flag(
                \.backgroundTransfer, "background_transfer",
                "`catalog`: a successful run hands the images to a background transfer that completes later, instead of downloading them itself"
            ),
            .duration(
                \.transferDelayMedian, "transfer_delay_median", in: .seconds(0)...(.days(7)),
                "`catalog`: a transfer completes this long after the run ends: lognormal median; assumption (discretionary transfers wait minutes to hours for good conditions)"
            ),
            .number(
                \.transferDelaySigma, "transfer_delay_sigma", "log sd", in: 0...5, "sigma of that lognormal; assumption"
            ),
            .duration(
                \.transferRetry, "transfer_retry", in: .minutes(1)...(.days(1)),
                "a Wi-Fi-only transfer due while off Wi-Fi (or any transfer while offline) is tried again this much later; assumption"
            ),
        ]
    }
}
