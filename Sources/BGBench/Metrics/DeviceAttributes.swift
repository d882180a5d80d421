/// What a device is, for subgroup analyses (issue 12 point 8): drawn once from its
/// population stream (`DeviceTraits`), except the charging habit, which is the share of
/// its counted nights it spent on the charger. devices.csv writes them after `archetype`,
/// in `labels` order; Reports/README.md has a pandas recipe that splits any metric by them.
public struct DeviceAttributes: Sendable, Equatable {
    /// The platform the device runs (an `ios-bgtask` fleet's legacy devices: `ios-fetch`).
    public var platform: String
    /// The Background App Refresh switch is off (gate `bar_off`).
    public var barOff: Bool
    /// Wi-Fi at home, at work.
    public var homeWifi: Bool
    public var workWifi: Bool
    /// Share of the counted nights on the charger (0 when none is counted).
    public var overnightChargeShare: Double
    /// The platform's usage average u at the start (MODEL.md §6.4 rule 4), and the user's
    /// expected opens per day.
    public var usageEstimate: Double
    public var expectedOpensPerDay: Double
    /// Keeps Low Power Mode on all the time (`population.low_power_share`).
    public var keepsLowPower: Bool

    public init(
        platform: String = "", barOff: Bool = false, homeWifi: Bool = false, workWifi: Bool = false,
        overnightChargeShare: Double = 0, usageEstimate: Double = 0, expectedOpensPerDay: Double = 0,
        keepsLowPower: Bool = false
    ) {
        self.platform = platform; self.barOff = barOff; self.homeWifi = homeWifi; self.workWifi = workWifi
        self.overnightChargeShare = overnightChargeShare; self.usageEstimate = usageEstimate
        self.expectedOpensPerDay = expectedOpensPerDay; self.keepsLowPower = keepsLowPower
    }

    /// devices.csv's attribute columns, in order (booleans are 0 or 1).
    public static let labels = [
        "platform", "bar_off", "home_wifi", "work_wifi", "overnight_charge_share",
        "usage_estimate", "expected_opens_per_day", "keeps_low_power",
    ]

    /// The values of `labels`, as devices.csv writes them.
    public var fields: [String] {
        func flag(_ b: Bool) -> String { b ? "1" : "0" }
        return [
            platform, flag(barOff), flag(homeWifi), flag(workWifi), CSVNumber.format(overnightChargeShare),
            CSVNumber.format(usageEstimate), CSVNumber.format(expectedOpensPerDay), flag(keepsLowPower),
        ]
    }
}

extension DeviceAttributes {
    init(platform: String, traits: DeviceTraits, nights: Int, nightsCharging: Int) {
        self.init(
            platform: platform, barOff: traits.barOff, homeWifi: traits.homeWifi, workWifi: traits.workWifi,
            overnightChargeShare: nights > 0 ? Double(nightsCharging) / Double(nights) : 0,
            usageEstimate: traits.initialUsage, expectedOpensPerDay: traits.opensPerDay,
            keepsLowPower: traits.keepsLowPower)
    }
}
