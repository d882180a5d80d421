/// Every parameter of a run except the policy, the seed and the fleet size (MODEL.md §1:
/// a run is scenario × policy × seed). The defaults below are MODEL.md's, each with its
/// source; `Datasets/scenarios/default.json` spells them out and any field may be left out
/// of a file to keep its default. JSON keys are the snake_case of these property names.
public struct Scenario: Codable, Sendable, Equatable {
    /// A short name reported in summary.csv.
    public var name = "default"
    public var description = "MODEL.md defaults: news app, mixed population, iOS BGTaskScheduler"
    public var population = Population()
    public var user = UserBehaviour()
    public var device = DeviceModel()
    public var network = NetworkModel()
    public var content = ContentModel()
    public var app = AppModel()
    public var platform = PlatformModel()
    public var energy = EnergyModel()
    public var push = PushModel()
    public var policies = PolicyParameters()
    /// What the reports lead with (ReportParameters.swift).
    public var report = ReportModel()

    public init() {}
}

// MARK: - Population and user (MODEL.md §3)

/// The R1 / news-like weekday open weights (MODEL.md §10 rule 3; §3 default shape).
public let newsOpenWeights: [Double] =
    [1, 0.5, 0.3, 0.3, 0.5, 1, 3, 6, 7, 6, 5, 5, 6, 5, 5, 5, 6, 7, 8, 9, 9, 8, 5, 2]

public struct Archetype: ParameterSet {
    /// A placeholder entry: weight 1, one open a day (a mix names its own).
    public init() { self.init(weight: 1, medianOpensPerDay: 1) }

    /// Share of the population (weights are normalised over archetypes).
    public var weight: Double
    /// Median opens per day, reopens included; a user's rate is lognormal around it.
    public var medianOpensPerDay: Double
    /// 24 relative weights of opens by hour of day on weekdays.
    public var weekdayWeights: [Double] = newsOpenWeights
    /// The weekend curve is the weekday curve this much later (MODEL.md §3: 1.5 h).
    public var weekendShift = TimeSpan.hours(1.5)
    /// ... at this fraction of the weekday level (MODEL.md §3: 0.9).
    public var weekendLevel = 0.9

    public init(
        weight: Double, medianOpensPerDay: Double, weekdayWeights: [Double] = newsOpenWeights,
        weekendShift: TimeSpan = .hours(1.5), weekendLevel: Double = 0.9
    ) {
        self.weight = weight; self.medianOpensPerDay = medianOpensPerDay; self.weekdayWeights = weekdayWeights
        self.weekendShift = weekendShift; self.weekendLevel = weekendLevel
    }
}

public struct Population: ParameterSet {
    public init() {}

    /// `archetypes` draws each user from the archetype mix; `routine` gives every user the
    /// routine below (MODEL.md §3, for teaching and tests).
    public var model = UserModelKind.archetypes
    /// MODEL.md §3 mix 0.15 / 0.45 / 0.25 / 0.15; medians 20, 6, 1 and 1/7 opens a day.
    public var archetypes: [String: Archetype] = [
        "heavy": Archetype(weight: 0.15, medianOpensPerDay: 20),
        "daily": Archetype(weight: 0.45, medianOpensPerDay: 6),
        "occasional": Archetype(weight: 0.25, medianOpensPerDay: 1),
        "rare": Archetype(weight: 0.15, medianOpensPerDay: 1.0 / 7),
    ]
    /// Log-scale sd of a user's rate around the archetype median (MODEL.md §3: 0.8).
    public var rateSigma = 0.8
    /// Personal shift of the diurnal curve, normal with this sd (MODEL.md §3: 1 h).
    public var chronotypeSd = TimeSpan.hours(1)
    public var routine = Routine()
    /// Optional drift (MODEL.md §3): from `drift_day` on (0 = never), the user's whole
    /// routine and diurnal curve move `drift_shift` later (negative: earlier).
    public var driftDay = 0
    public var driftShift = TimeSpan.hours(4)
    /// Share of users with Background App Refresh off (MODEL.md §6.3: 15 %, assumption).
    public var barOffShare = 0.15
    /// Share of devices on iOS 12 or lower, which use Background Fetch (`ios-fetch`) when
    /// the scenario's platform is `ios-bgtask` (MODEL.md §4, §6.3: 0 in a 2026 fleet).
    public var legacyIosShare = 0.0
    /// Users who keep Low Power Mode on all the time (issue 12 point 9; default 0, see the field's doc).
    public var lowPowerShare = 0.0
    /// Device time zones, as shares of the fleet (MODEL.md §2: they only matter for the
    /// fleet's server load, server.csv). Default: everyone at UTC+0.
    public var utcOffsets: [UTCOffsetShare] = [UTCOffsetShare(offset: .hours(0), share: 1)]
}

/// A share of the fleet living at one UTC offset (device-local time = UTC + offset).
public struct UTCOffsetShare: ParameterSet {
    /// Everyone at UTC+0.
    public init() { self.init(offset: .hours(0), share: 1) }

    public var offset: TimeSpan
    public var share: Double
    public init(offset: TimeSpan, share: Double) { self.offset = offset; self.share = share }
}

public enum UserModelKind: String, Codable, Sendable, CaseIterable { case archetypes, routine }

/// Opens at listed times of day, each with a jitter and a daily probability (MODEL.md §3).
public struct Routine: ParameterSet {
    public init() {}

    public struct Entry: ParameterSet {
        /// A placeholder open at midnight (a routine's entries name their own `at`).
        public init() { self.init(at: .hours(0)) }

        public var at: TimeSpan
        public var jitterSd = TimeSpan.minutes(10)
        public var probability = 1.0
        public init(at: TimeSpan, jitterSd: TimeSpan = .minutes(10), probability: Double = 1) {
            self.at = at; self.jitterSd = jitterSd; self.probability = probability
        }
    }
    /// The routine of issue 3's learning test: 07:30, 12:30 and 21:00, ± 10 min.
    public var opens: [Entry] = [Entry(at: .hours(7.5)), Entry(at: .hours(12.5)), Entry(at: .hours(21))]
}

public struct UserBehaviour: ParameterSet {
    public init() {}

    /// The sleep window: no opens inside it except night checks (MODEL.md §3).
    public var sleepEnabled = true
    public var bedtimeMean = TimeSpan.hours(23.5)
    public var bedtimeSd = TimeSpan.hours(1)
    public var sleepMin = TimeSpan.hours(7)
    public var sleepMax = TimeSpan.hours(8)
    /// Opens inside the sleep window, per night (MODEL.md §3: 0.1).
    public var nightChecksPerNight = 0.1
    /// Probability that an open is followed by another within minutes (MODEL.md §3: 0.3),
    /// with an exponential gap of mean `reopen_gap_mean` (10 min) after the session ends.
    public var pReopen = 0.3
    public var reopenGapMean = TimeSpan.minutes(10)
    /// Session length: exponential body, Pareto tail (MODEL.md §3: mean about 70 s, half
    /// under 30 s, 90 % under 4 min; Böhmer 2011, FALCON 2012). The three targets fix the
    /// defaults analytically: the tail starts at 4 min, so the share over 4 min is
    /// q + (1 − q)·e^(−240/b); the median comes from the body alone,
    /// (1 − q)(1 − e^(−30/b)) = 1/2; α then sets the mean (1 − q)·b + q·x_m·α/(α − 1).
    /// Rounded (b 37 s, q 0.098, α 2.8): mean 69.9 s (the 2 h cap takes 0.01 s), median
    /// 29.9 s, 90.06 % under 4 min.
    public var sessionBodyMean = TimeSpan.seconds(37)
    public var sessionTailShare = 0.098
    public var sessionTailMin = TimeSpan.seconds(240)
    public var sessionTailAlpha = 2.8
    public var sessionMax = TimeSpan.hours(2)
    /// Probability per session that the user swipes the app away (MODEL.md §6.3: 2 %).
    public var forceQuitProbability = 0.02
}

// MARK: - Device (MODEL.md §4)

public struct DeviceModel: ParameterSet {
    public init() {}

    /// false: no battery, charging or Low Power Mode at all (R1).
    public var batteryEnabled = true
    /// 15 Wh, about 4,000 mAh at 3.85 V (MODEL.md §4, assumption).
    public var batteryWh = 15.0
    /// Level at t = 0 (assumption).
    public var initialLevel = 0.8
    /// Drain and charge (MODEL.md §6.3, assumption): idle 0.04 W, screen on 1.5 W (in
    /// place of idle), charging adds 15 W into the battery.
    public var idleW = 0.04
    public var screenOnW = 1.5
    public var chargeW = 15.0
    /// Nightly charging near bedtime (MODEL.md §4; probability an assumption): plugged in
    /// at bedtime ± `plug_jitter_sd`, unplugged at wake-up.
    public var overnightChargeProbability = 0.85
    public var plugJitterSd = TimeSpan.minutes(30)
    /// Daytime top-ups: probability per day, uniform start between 09:00 and 21:00,
    /// exponential length (assumption).
    public var topUpProbability = 0.3
    public var topUpMean = TimeSpan.minutes(45)
    /// Below this level and not charging, discretionary work is off (WWDC20 10063: 20 %).
    public var lowBatteryLevel = 0.2
    /// Low Power Mode: on with this probability when the level crosses 20 %, off when
    /// charging passes 80 % (MODEL.md §6.3, iOS behaviour).
    public var lowPowerProbability = 0.5
    public var lowPowerOffLevel = 0.8
    /// Phone use beyond the app (MODEL.md §4: about 50 screen sessions and 1–5 h of screen
    /// time a day; Falaki 2010, Böhmer 2011, Andrews 2015), with the user's diurnal shape.
    /// Lognormal lengths, median 60 s, sigma 1.5: mean 185 s, 2.6 h a day.
    public var screenSessionsPerDay = 50.0
    public var screenSessionMedian = TimeSpan.seconds(60)
    public var screenSessionSigma = 1.5
}

public struct NetworkModel: ParameterSet {
    public init() {}

    /// Wi-Fi at home in the evening and at night for this share of users (MODEL.md §6.3:
    /// 90 %, assumption); R1 uses the same window, 19:00–08:00.
    public var homeWifiShare = 0.9
    public var homeFrom = TimeSpan.hours(19)
    public var homeUntil = TimeSpan.hours(8)
    /// Wi-Fi at work 09:00–17:00 on weekdays for this share (MODEL.md §6.3: 50 %).
    public var workWifiShare = 0.5
    public var workFrom = TimeSpan.hours(9)
    public var workUntil = TimeSpan.hours(17)
    /// Share of users whose cellular network is 5G rather than LTE (assumption).
    public var nr5gShare = 0.3
    /// Offline spells: Poisson, 2 a day, exponential length mean 10 min (MODEL.md §6.3).
    public var offlineSpellsPerDay = 2.0
    public var offlineMean = TimeSpan.minutes(10)
    /// Request latency: lognormal medians (assumption, MODEL.md §6.3), sigma 0.8.
    public var latencyMedianWifi = TimeSpan.seconds(0.15)
    public var latencyMedianLte = TimeSpan.seconds(0.30)
    public var latencyMedianNr5g = TimeSpan.seconds(0.25)
    public var latencySigma = 0.8
    /// Downlink bandwidth in Mbit/s (LTE: Huang et al. 2012 median 13).
    public var bandwidthWifiMbps = 30.0
    public var bandwidthLteMbps = 13.0
    public var bandwidthNr5gMbps = 100.0
}

// MARK: - Content (MODEL.md §5)

public struct ContentModel: ParameterSet {
    public init() {}

    public var kind = ContentKind.news
    /// The shared news feed: non-homogeneous Poisson, 48 items a day (MODEL.md §5) with
    /// R1's hourly weights (MODEL.md §10 rule 4).
    public var itemsPerDay = 48.0
    public var hourlyWeights: [Double] =
        [0.5, 0.3, 0.2, 0.2, 0.3, 1, 3, 5, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5, 4, 3, 3, 2, 1, 0.7]
    /// Item sizes: lognormal, median 4.5 kB, sigma 0.5 (mean 5.1 kB; MODEL.md §6.3's 5 kB
    /// per item, assumption).
    public var itemSizeMedianKilobytes = 4.5
    public var itemSizeSigma = 0.5
    /// `sync` only: the server job and its target (the item fields above then describe the
    /// data each device produces, not a shared feed).
    public var sync = SyncContentParameters()
    /// `catalog` only: images, Wi-Fi-only and background transfers.
    public var catalog = CatalogParameters()
    /// `messages` only: how a device's messages cluster into conversations.
    public var messages = MessagesParameters()
}

/// What the content is (MODEL.md §5; docs/content.md). `news` and `catalog` read one feed
/// shared by all devices; `sync` gives every device its own stream of data to upload.
public enum ContentKind: String, Codable, Sendable, CaseIterable {
    case news, sync, catalog, messages
    /// Whether devices read the run's shared feed (else each has its own stream).
    public var sharesFeed: Bool { self == .news || self == .catalog }
}

// MARK: - App (MODEL.md §6)

public struct AppModel: ParameterSet {
    public init() {}

    /// `requests`: MODEL.md §6.4 rule 6 (launch, then 1–2 requests). `lognormal`: R1's
    /// rule 6 (one lognormal duration, one failure probability).
    public var task = TaskModelKind.requests
    /// Launch cost (MODEL.md §6.4 rule 6: 0.3 s, 0.5 J).
    public var launch = TimeSpan.seconds(0.3)
    public var launchJ = 0.5
    /// A run makes one request, and a second with this probability (MODEL.md §6: 1–2).
    public var secondRequestProbability = 0.5
    /// Per request: fails with `failure_probability`, else hangs with `hang_probability`
    /// (MODEL.md §6.3 / §6.4 rule 9: 0.01 and 0.003, assumption).
    public var failureProbability = 0.01
    public var hangProbability = 0.003
    /// Payload: 20 kB fixed plus the new items' sizes (delta) or `full_set_items` items
    /// (full refresh) (MODEL.md §6.3, assumption).
    public var payloadFixedKilobytes = 20.0
    public var sync = SyncKind.delta
    public var fullSetItems = 50
    /// Behaviour switches (MODEL.md §6): honest status, resubmission, expiration handler.
    public var status = StatusHonesty.honest
    public var resubmits = true
    public var handlesExpiration = true
    /// R1's run (MODEL.md §10 rule 6): duration lognormal, median 0.8 s, sigma 1.0; fails
    /// with probability 0.02. Used when `task` is `lognormal`.
    public var lognormalMedian = TimeSpan.seconds(0.8)
    public var lognormalSigma = 1.0
    public var lognormalFailureProbability = 0.02
    /// An optional processing task beside the refresh (MODEL.md §6: BGProcessingTask).
    public var processing = ProcessingTaskParameters()
}

public enum TaskModelKind: String, Codable, Sendable, CaseIterable { case requests, lognormal }
public enum SyncKind: String, Codable, Sendable, CaseIterable { case delta, full }
public enum StatusHonesty: String, Codable, Sendable, CaseIterable {
    case honest
    case alwaysNewData = "always_new_data"
}

// MARK: - Platform (MODEL.md §6.2–6.4): `PlatformModel` in ComponentParameters.swift, each platform's
// parameters in its own file.

// MARK: - Silent push (MODEL.md §6)

/// Delivery of silent (background) pushes: a server-side policy sends them; the push
/// service and the platform deliver them late or not at all (MODEL.md §6: "delivery is not
/// guaranteed"). A delivered push launches the app's refresh task at once.
public struct PushModel: ParameterSet {
    public init() {}

    /// Pushes the platform delivers to the app per rolling hour; more are not delivered
    /// (Apple: "don't try to send more than two or three per hour", Pushing background
    /// updates to your App, developer documentation).
    public var perHour = 2
    /// A push lost on the way (push service, network): assumption, no public figure.
    public var dropProbability = 0.05
    /// Delay from the server's send to the device (lognormal; assumption: seconds).
    public var delayMedian = TimeSpan.seconds(2)
    public var delaySigma = 1.0
}

// MARK: - Energy (MODEL.md §8)

public struct EnergyModel: ParameterSet {
    public init() {}

    /// LTE radio (Huang et al., MobiSys 2012): promotion 0.26 s at 1.2 W, connected
    /// 1.06 W, tail 11.6 s at 1.06 W.
    public var ltePromotion = TimeSpan.seconds(0.26)
    public var ltePromotionW = 1.2
    public var lteActiveW = 1.06
    public var lteTail = TimeSpan.seconds(11.6)
    public var lteTailW = 1.06
    /// Wi-Fi: far lower power and a short tail (same paper; R1: 0.4 W, 0.24 s).
    public var wifiActiveW = 0.4
    public var wifiTail = TimeSpan.seconds(0.24)
    public var wifiTailW = 0.4
    /// 5G NSA draws 2–3× LTE power (Xu et al., SIGCOMM 2020): 2.5.
    public var nr5gPowerFactor = 2.5
}

// MARK: - Policy parameters (MODEL.md §7): `PolicyParameters` in ComponentParameters.swift, each
// policy's parameters in its own file.
