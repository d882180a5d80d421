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

    public init() {}
}

// MARK: - Population and user (MODEL.md §3)

/// The R1 / news-like weekday open weights (MODEL.md §10 rule 3; §3 default shape).
public let newsOpenWeights: [Double] =
    [1, 0.5, 0.3, 0.3, 0.5, 1, 3, 6, 7, 6, 5, 5, 6, 5, 5, 5, 6, 7, 8, 9, 9, 8, 5, 2]

public struct Archetype: Codable, Sendable, Equatable {
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

    public init(weight: Double, medianOpensPerDay: Double, weekdayWeights: [Double] = newsOpenWeights,
                weekendShift: TimeSpan = .hours(1.5), weekendLevel: Double = 0.9) {
        self.weight = weight; self.medianOpensPerDay = medianOpensPerDay; self.weekdayWeights = weekdayWeights
        self.weekendShift = weekendShift; self.weekendLevel = weekendLevel
    }
}

public struct Population: Codable, Sendable, Equatable {
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
    /// Device time zones, as shares of the fleet (MODEL.md §2: they only matter for the
    /// fleet's server load, server.csv). Default: everyone at UTC+0.
    public var utcOffsets: [UTCOffsetShare] = [UTCOffsetShare(offset: .hours(0), share: 1)]
}

/// A share of the fleet living at one UTC offset (device-local time = UTC + offset).
public struct UTCOffsetShare: Codable, Sendable, Equatable {
    public var offset: TimeSpan
    public var share: Double
    public init(offset: TimeSpan, share: Double) { self.offset = offset; self.share = share }
}

public enum UserModelKind: String, Codable, Sendable, CaseIterable { case archetypes, routine }

/// Opens at listed times of day, each with a jitter and a daily probability (MODEL.md §3).
public struct Routine: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
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

public struct UserBehaviour: Codable, Sendable, Equatable {
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
    /// under 30 s, 90 % under 4 min; Böhmer 2011, FALCON 2012). With these defaults the
    /// mean is 64 s (67.5 s without the 2 h cap), the median 28 s and 96 % are under 4 min.
    public var sessionBodyMean = TimeSpan.seconds(35)
    public var sessionTailShare = 0.1
    public var sessionTailMin = TimeSpan.seconds(120)
    public var sessionTailAlpha = 1.5
    public var sessionMax = TimeSpan.hours(2)
    /// Probability per session that the user swipes the app away (MODEL.md §6.3: 2 %).
    public var forceQuitProbability = 0.02
}

// MARK: - Device (MODEL.md §4)

public struct DeviceModel: Codable, Sendable, Equatable {
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

public struct NetworkModel: Codable, Sendable, Equatable {
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

public struct ContentModel: Codable, Sendable, Equatable {
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

/// A messaging app's inbox (MODEL.md §5: "per-device, bursty"): each device receives its own
/// messages, `items_per_day` of them on average by the `hourly_weights`, in conversations:
/// a conversation starts as a non-homogeneous Poisson process and brings a geometric number
/// of messages (mean `burst_mean`) with exponential gaps (mean `burst_gap_mean`).
public struct MessagesParameters: Codable, Sendable, Equatable {
    /// Messages per conversation, mean of a geometric count (at least 1). Assumption:
    /// chats come in short exchanges; no public figure for an average app.
    public var burstMean = 3.0
    /// Mean gap between messages of a conversation (exponential). Assumption: replies
    /// within about a minute.
    public var burstGapMean = TimeSpan.minutes(1)
}

/// A fitness-style upload (MODEL.md §5): the device produces items (samples, workouts) by
/// the item fields of `content`, from its own stream; a run or an open uploads what the
/// server lacks (delta); a daily server job reads the server's copy.
public struct SyncContentParameters: Codable, Sendable, Equatable {
    /// When the daily server job reads the uploads, as a UTC time of day (device-local time
    /// = UTC + the device's offset). Assumption: nightly batch jobs run in the small hours.
    public var serverJobAt = TimeSpan.hours(4)
    /// The job is on time if every item older than this was uploaded (assumption: the
    /// fitness preset's ~4 h sync interval).
    public var targetAge = TimeSpan.hours(4)
}

/// An e-commerce catalog (MODEL.md §5: a larger payload that changes hourly): each item of
/// the shared feed (a product change) brings images; optionally Wi-Fi-only, optionally
/// downloaded by a background transfer that completes after the run, at the system's
/// discretion (as a background URLSession does).
public struct CatalogParameters: Codable, Sendable, Equatable {
    /// Image bytes per new item (assumption: a product's images after app-side resizing).
    public var imageKilobytesPerItem = 250.0
    /// Images only on Wi-Fi: on cellular a run or a stale open fetches the metadata alone
    /// and the cache stays stale (a user's "download images on Wi-Fi only" setting).
    public var wifiOnly = false
    /// Hand the images to a background transfer instead of downloading them in the run.
    public var backgroundTransfer = false
    /// The transfer completes this long after the run ends: lognormal, median 30 min,
    /// sigma 1 (assumption: discretionary transfers wait minutes to hours for good conditions).
    public var transferDelayMedian = TimeSpan.minutes(30)
    public var transferDelaySigma = 1.0
    /// A Wi-Fi-only transfer due while off Wi-Fi is retried this much later (assumption).
    public var transferRetry = TimeSpan.minutes(15)
}

// MARK: - App (MODEL.md §6)

public struct AppModel: Codable, Sendable, Equatable {
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

/// A processing task (BGProcessingTask, MODEL.md §6; docs/content.md): deferrable work,
/// minutes long, due every `interval`; the platform runs it only while the device is idle
/// (screen off) and its requirements hold, interrupts it when the screen comes on or the
/// phone is unplugged, and resumes it later where it stopped.
public struct ProcessingTaskParameters: Codable, Sendable, Equatable {
    public var enabled = false
    /// Due this long after the last completion; the first is due at a uniform time in the
    /// first interval (assumption: weekly database maintenance).
    public var interval = TimeSpan.days(7)
    /// Work to do, in device time (assumption: a few minutes of database maintenance).
    public var work = TimeSpan.minutes(5)
    /// BGProcessingTaskRequest.requiresExternalPower and requiresNetworkConnectivity.
    public var requiresPower = true
    public var requiresNetwork = false
    /// Reported on time if it completes within this after it became due (assumption).
    public var deadline = TimeSpan.days(1)
    /// CPU power while it runs (assumption: about one busy core).
    public var powerW = 1.0
}

public enum TaskModelKind: String, Codable, Sendable, CaseIterable { case requests, lognormal }
public enum SyncKind: String, Codable, Sendable, CaseIterable { case delta, full }
public enum StatusHonesty: String, Codable, Sendable, CaseIterable {
    case honest
    case alwaysNewData = "always_new_data"
}

// MARK: - Platform (MODEL.md §6.2–6.4)

public struct PlatformModel: Codable, Sendable, Equatable {
    /// The platform profile by name (`bgbench list` shows them).
    public var name = "ios-bgtask"
    public var iosBgtask = IOSBGTaskParameters()
    public var iosFetch = IOSFetchParameters()
    public var androidWorkmanager = AndroidWorkManagerParameters()
    public var unrestricted = UnrestrictedParameters()
}

/// `ios-fetch` (iOS 7–12 Background Fetch, MODEL.md §6.2). The token bucket, penalties,
/// gates and runtime limit are `ios_bgtask`'s (the same system budget).
public struct IOSFetchParameters: Codable, Sendable, Equatable {
    /// The app's `setMinimumBackgroundFetchInterval` (advisory): `"never"` (UIKit's default,
    /// UIApplicationBackgroundFetchIntervalNever: no fetches at all) or a duration. An app
    /// that wants background fetch sets it; the system then wakes it no sooner than this
    /// after the last fetch, and no sooner than `ios_bgtask.min_spacing`.
    public var minimumInterval = FetchInterval.never
}

/// A minimum background fetch interval: never, or a duration.
public enum FetchInterval: Codable, Sendable, Equatable, CustomStringConvertible {
    case never
    case every(TimeSpan)

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self), text == "never" { self = .never; return }
        guard let span = try? TimeSpan(from: decoder) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "expected \"never\" or a duration such as \"15m\", \"1h\" or 900")
        }
        self = .every(span)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .every(let span): span.description
        }
    }
}

/// `android-workmanager` (MODEL.md §6.2): WorkManager periodic work under JobScheduler's
/// App Standby Buckets, QuotaController quotas and Doze. Arrays by bucket are in the order
/// active, working_set, frequent, rare, restricted.
public struct AndroidWorkManagerParameters: Codable, Sendable, Equatable {
    /// PeriodicWorkRequest.MIN_PERIODIC_INTERVAL_MILLIS (15 min) and
    /// MIN_PERIODIC_FLEX_MILLIS (5 min): a period's run may come as early as the start of
    /// its flex window, so run starts are at least `min_interval − min_flex` (10 min) apart.
    public var minInterval = TimeSpan.minutes(15)
    public var minFlex = TimeSpan.minutes(5)
    /// JobScheduler's execution cap for a job, which WorkManager's work runs as (10 min).
    public var runtimeLimit = TimeSpan.minutes(10)
    /// AppStandbyController DEFAULT_SCREEN_TIME_THRESHOLDS and
    /// DEFAULT_ELAPSED_TIME_THRESHOLDS (Android 12–14): the app is in the last bucket i
    /// whose screen-on time and elapsed time since the app's last use both reach entry i.
    public var screenTimeThresholds: [TimeSpan] = [.hours(0), .hours(0), .hours(1), .hours(2), .hours(6)]
    public var elapsedTimeThresholds: [TimeSpan] = [.hours(0), .hours(12), .hours(24), .hours(48), .days(8)]
    /// QuotaController (QcConstants, Android 12–14): 10 min of job time per window
    /// (DEFAULT_ALLOWED_TIME_PER_PERIOD_MS), windows DEFAULT_WINDOW_SIZE_*_MS 10 min / 2 h /
    /// 8 h / 24 h / 24 h, sessions per window DEFAULT_MAX_SESSION_COUNT_* 75 / 10 / 8 / 3 / 1.
    public var allowedTime = TimeSpan.minutes(10)
    public var quotaWindows: [TimeSpan] = [.minutes(10), .hours(2), .hours(8), .hours(24), .hours(24)]
    public var maxSessions: [Int] = [75, 10, 8, 3, 1]
    /// DEFAULT_IN_QUOTA_BUFFER_MS: a job starts only with at least this much quota left.
    public var inQuotaBuffer = TimeSpan.seconds(30)
    /// Doze (DeviceIdleController constants): deep idle after INACTIVE_TIMEOUT (30 min) +
    /// IDLE_AFTER_INACTIVE_TIMEOUT (30 min) of screen off, unplugged and still; idle periods
    /// IDLE_TIMEOUT 1 h × IDLE_FACTOR 2 up to MAX_IDLE_TIMEOUT 6 h, each followed by a
    /// maintenance window IDLE_PENDING_TIMEOUT 5 min × IDLE_PENDING_FACTOR 2 up to
    /// MAX_IDLE_PENDING_TIMEOUT 10 min.
    public var dozeAfter = TimeSpan.hours(1)
    public var idleFirst = TimeSpan.hours(1)
    public var idleFactor = 2.0
    public var idleMax = TimeSpan.hours(6)
    public var maintenanceFirst = TimeSpan.minutes(5)
    public var maintenanceFactor = 2.0
    public var maintenanceMax = TimeSpan.minutes(10)
}

public struct IOSBGTaskParameters: Codable, Sendable, Equatable {
    /// B = budget_scale · ln(1 + u) runs a day, at most `budget_cap` (MODEL.md §6.3).
    public var budgetScale = 2.5
    public var budgetCap = 12.0
    /// Half-life of the exponentially weighted opens per day u (MODEL.md §6.4 rule 4).
    public var usageHalfLife = TimeSpan.days(7)
    /// Minimum spacing between run starts (MODEL.md §6.3: 15 min).
    public var minSpacing = TimeSpan.minutes(15)
    /// The refresh runtime limit, counted from the run's start (MODEL.md §6.2: 30 s).
    public var runtimeLimit = TimeSpan.seconds(30)
    /// Penalty multipliers on m (MODEL.md §6.4 rule 5).
    public var penaltyKilled = 0.5
    public var penaltyExpired = 0.8
    public var penaltyFailed = 0.9
    public var rewardNewData = 1.05
    public var penaltyFalseNewData = 0.9
    public var midnightRecovery = 1.1
    public var multiplierFloor = 0.05
}

public struct UnrestrictedParameters: Codable, Sendable, Equatable {
    /// Runs that may start per day (0: no cap; R1: 12) (MODEL.md §6.4 rule 10).
    public var dailyCap = 0
    public var runtimeLimit = TimeSpan.seconds(30)
}

// MARK: - Silent push (MODEL.md §6)

/// Delivery of silent (background) pushes: a server-side policy sends them; the push
/// service and the platform deliver them late or not at all (MODEL.md §6: "delivery is not
/// guaranteed"). A delivered push launches the app's refresh task at once.
public struct PushModel: Codable, Sendable, Equatable {
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

public struct EnergyModel: Codable, Sendable, Equatable {
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

// MARK: - Policy parameters (MODEL.md §7)

public struct PolicyParameters: Codable, Sendable, Equatable {
    public var fixed = FixedParameters()
    public var adaptive = AdaptiveParameters()
    public var usage = UsageParameters()
    public var histogram = HistogramParameters()
    public var nhpp = NHPPParameters()
    public var bayes = BayesParameters()
    public var kde = KDEParameters()
    public var logistic = LogisticParameters()
    public var oracle = OracleParameters()
    public var push = PushParameters()
}

public struct PushParameters: Codable, Sendable, Equatable {
    /// The server sends at most this many pushes per rolling hour to a device, coalescing
    /// the changes in between (default: the platform's delivery budget, `push.per_hour`).
    public var perHour = 2
    /// The refresh fallback: a background refresh is asked for this long after the last
    /// run or open, so a lost push is recovered (assumption; "0s" turns it off).
    public var fallbackInterval = TimeSpan.hours(4)
}

public struct FixedParameters: Codable, Sendable, Equatable {
    /// Ask every `interval` (MODEL.md §7: 15 min), from a uniform random phase.
    public var interval = TimeSpan.minutes(15)
}

public struct AdaptiveParameters: Codable, Sendable, Equatable {
    /// AIMD on the interval: + `increase` after noData, × `decrease` after newData.
    public var initialInterval = TimeSpan.hours(1)
    public var minInterval = TimeSpan.minutes(15)
    public var maxInterval = TimeSpan.hours(8)
    public var increase = TimeSpan.minutes(30)
    public var decrease = 0.5
    /// Back-off factors on the interval after a failed and after an expired or killed run.
    public var failureBackoff = 2.0
    public var killBackoff = 4.0
    /// Habit: quarter-hour-of-day open counts, halved every `habit_half_life`; a slot
    /// whose share of opens is at least `habit_lift` times the average slot's (1/96) is
    /// habitual, and a wake is pulled to `lead` before it when it starts within the
    /// current interval (bgbench's heuristic; no published default).
    public var habitHalfLife = TimeSpan.days(14)
    public var habitLift = 2.0
    public var lead = TimeSpan.minutes(5)
}

public struct OracleParameters: Codable, Sendable, Equatable {
    /// How long before an open the clairvoyant policy asks for its wake.
    public var lead = TimeSpan.seconds(60)
}

// The learning policies (usage, histogram, nhpp, bayes, kde, logistic) share three rules
// with parameters of the same names (docs/policies.md, "Rules the learning policies
// share"): the next wake comes at least `min_gap` after the last run started; after a
// `failed` run the policy waits `failure_backoff`, after an expired or killed run
// `kill_backoff`, doubled for each further failure in a row (at most a day). Every value
// below is bgbench's own assumption unless a source is named.

/// When a learning policy judges that the user's routine changed, and how much of what
/// it learned it keeps then (docs/policies.md, "A changed routine"; `RoutineChange` in
/// Policies/PolicySupport.swift). `histogram`, `nhpp`, `bayes`, `kde` and `logistic` each
/// have a copy under `routine_change`. All are bgbench's assumptions, checked on issue 3's
/// 4 h shift of the routine user (AdaptationTests) and on the default scenario.
public struct RoutineChangeParameters: Codable, Sendable, Equatable {
    /// What stays of the statistics (and of the judge's own profile) when a change is
    /// seen: 2 % (weeks of the old routine shrink to well under a day's weight).
    public var keep = 0.02
    /// An hour of the day is rare when it holds less than this share of the profile of
    /// opens (a uniform day gives each hour 1/24 ≈ 4.2 %).
    public var rareHourShare = 0.01
    /// A day is a changed routine when at least this share of its opens fall in rare
    /// hours (two thirds: a routine moved into the night loses opens to the sleep window)...
    public var surprisingShare = 2.0 / 3
    /// ... and it had at least this many opens...
    public var minOpens = 2
    /// ... and the profile holds at least this many (decayed) opens: about three days of
    /// a routine user's...
    public var minHistory = 10.0
    /// ... on this many days in a row: a new routine persists, a user's odd day does not
    /// (with 1, users who open the app once or twice a day at random hours set it off
    /// often, and each time the policy forgets what it knew and refits: `nhpp` cost 3.9×
    /// `fixed` on the default scenario; with 2, 2×).
    public var minDays = 2
}

public struct UsageParameters: Codable, Sendable, Equatable {
    /// Half-life of the hour-of-day open counts and of the opens-per-day average: the
    /// platform's own usage half-life (MODEL.md §6.4 rule 4: 7 d), as iOS's predictor
    /// would weigh recent use.
    public var halfLife = TimeSpan.days(7)
    /// Wakes a day K = round(`wakes_scale` · ln(1 + u)), at most `wakes_cap`, u = opens a
    /// day: the budget formula of MODEL.md §6.3 (2.5, cap 12), so more opens bring more
    /// wakes and the policy asks for about what ios-bgtask grants.
    public var wakesScale = 2.5
    public var wakesCap = 12
    /// An hour is a candidate only if P(an open in it) is at least this (assumption).
    public var minProbability = 0.2
    /// How long before a chosen hour to wake (assumption: a few minutes, as iOS launches
    /// an app shortly before its predicted use).
    public var lead = TimeSpan.minutes(10)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
}

public struct HistogramParameters: Codable, Sendable, Equatable {
    /// Half-life of the 168 hour-of-week open counts: each bin sees one sample a week, so
    /// four weeks keep about six samples per bin (assumption).
    public var halfLife = TimeSpan.days(28)
    /// P(an open in the `window` from the start of an hour) is 1 − exp(−expected opens in
    /// it); whole hours (assumption: one bin).
    public var window = TimeSpan.hours(1)
    /// Wake before an hour where that probability reaches `threshold` (assumption).
    public var threshold = 0.3
    public var lead = TimeSpan.minutes(5)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}

public struct NHPPParameters: Codable, Sendable, Equatable {
    /// Half-life of the hour-of-week counts and exposures the fit reads (as `histogram`).
    public var halfLife = TimeSpan.days(28)
    /// Fourier pairs of the time of day in log λ (assumption, checked on issue 3's routine
    /// user: with 5, 79 % of runs start in the hour before an open; with 4, 60 %; with 3, 52 %).
    public var harmonics = 5
    /// Prior precision of every coefficient but the intercept (ridge pseudo-observations):
    /// keeps the fit finite when most hours have no opens (assumption). 0.1, not 1 as
    /// before: a week after a changed routine the fit has a week of data, and 1 flattened
    /// the new routine's peaks (issue 3's 4 h shift, 16 devices × 48 seeds: 85 % of the old
    /// rate regained with 1, 97 % with 0.3, 105 % with 0.1, with `routine_change.keep` 0;
    /// the default scenario's fresh-open rate moved by less than 0.1 point).
    public var ridge = 0.1
    /// Refit every this many days (one warm-started IRLS step; the first fit iterates to
    /// convergence). Weekly keeps the cost within 3× `fixed` (docs/policies.md).
    public var refitDays = 7
    /// Mean time between content items, 1/μ, for the chance that a wake's fetch is still
    /// fresh at the next open: MODEL.md §5's 48 items a day.
    public var itemInterval = TimeSpan.minutes(30)
    /// A wake must save at least this much expected staleness per joule it costs, in
    /// seconds per joule (assumption: one minute per joule; an LTE wake of about 13.6 J
    /// must save about 14 min).
    public var minSavingPerJoule = 60.0
    public var lead = TimeSpan.minutes(1)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    /// `keep` 0, not 0.02: a wake must save staleness per joule, and on Wi-Fi (0.7 J) a
    /// wake that saves 42 s passes, so 2 % of the old routine still drew cheap wakes to
    /// its hours, which took the budget the new hours needed (issue 3's 4 h shift at
    /// `ridge` 0.3: 73 % of the old rate regained with 0.02, 97 % with 0).
    public var routineChange = RoutineChangeParameters(keep: 0)
}

public struct BayesParameters: Codable, Sendable, Equatable {
    /// Half-life of the hour-of-week counts and exposures (the posterior's data).
    public var halfLife = TimeSpan.days(28)
    /// Gamma prior on each bin's rate (opens per hour): shape `prior_shape`, rate
    /// `prior_weeks` (pseudo-weeks of exposure). Prior mean 0.04 opens an hour; the small
    /// shape keeps Thompson sampling from waking often at hours never seen busy: after 3
    /// weeks without an open an hour passes a 0.3 threshold in 0.3 % of draws (assumption).
    public var priorShape = 0.02
    public var priorWeeks = 0.5
    /// The hierarchical part of the prior (empirical Bayes; Gelman et al., *Bayesian Data
    /// Analysis*, ch. 5): each hour-of-week bin's prior also holds `pool_weeks` pseudo-weeks
    /// at the rate of its hour of day pooled over all weekdays, so an hour the user has
    /// taken up is learned from every day's opens, while differences between weekdays
    /// show once a bin's own weeks outweigh it (0 turns the pooling off). 2 (assumption,
    /// checked on issue 3's 4 h shift: a week after it, an hour taken up on every day has
    /// a prior mean near its daily rate; the default scenario's steady state keeps about
    /// 6 weeks of each bin's own data, which outweigh it 3 to 1).
    public var poolWeeks = 2.0
    /// Wake before an hour whose sampled P(an open in it) reaches this (as `histogram`).
    public var threshold = 0.3
    /// How far ahead a plan samples; beyond it, midnight plans again.
    public var lookAhead = TimeSpan.hours(24)
    public var lead = TimeSpan.minutes(5)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}

public struct KDEParameters: Codable, Sendable, Equatable {
    /// Half-life of the kernel density's weights (assumption, as `histogram`).
    public var halfLife = TimeSpan.days(28)
    /// Circular standard deviation of the von Mises kernel, κ = 1/σ² in radians
    /// (assumption: wider than the 15 min grid, narrower than a routine's spacing).
    public var bandwidth = TimeSpan.minutes(20)
    /// Mean time between content items, 1/μ (MODEL.md §5: 48 a day).
    public var itemInterval = TimeSpan.minutes(30)
    /// Wake where the chance that the next open finds this wake's fetch still fresh
    /// reaches `min_fresh` (assumption).
    public var minFresh = 0.1
    public var lead = TimeSpan.minutes(1)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}

public struct LogisticParameters: Codable, Sendable, Equatable {
    /// Half-life of the reservoir's class totals (the weights of its rows).
    public var halfLife = TimeSpan.days(28)
    /// Fourier pairs of the time of day (as `nhpp`; on the routine user 4 put only 58 % of
    /// runs in the hour before an open, 5 put 83 %).
    public var harmonics = 5
    /// The label: an open within the next `window`: 30 min, 1, 1.5, 2, 3, 4 or 6 h (the
    /// windows tile the day and are centred on quarter-hours).
    public var window = TimeSpan.minutes(30)
    /// Rows kept (half with an open, half without in 16 strata), each reweighted by its
    /// stratum's total; the fit's cost grows with it (assumption: 64 keeps a weekly refit
    /// within the cost budget; 32 costs about a fifth less and learns the routine a little
    /// worse, 81 % of runs before an open against 83 %).
    public var reservoir = 64
    /// Prior precision of every coefficient but the intercept (as `nhpp`).
    public var ridge = 1.0
    /// Refit every this many days, one warm-started IRLS step (as `nhpp`).
    public var refitDays = 7
    /// Wake where P(an open within the window) reaches this (assumption: a daily user's
    /// busiest half-hour is about 0.2; 0.1 lets such users wake in their busy hours).
    public var threshold = 0.1
    public var lead = TimeSpan.minutes(5)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}
