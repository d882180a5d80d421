/// Every parameter of a run except the policy, the seed and the fleet size (MODEL.md §1:
/// a run is scenario × policy × seed). The defaults below are MODEL.md's; each parameter is
/// documented once, by its declared field (CoreParameters.swift for the core sections, the
/// component's own file otherwise), with its meaning and its default's source, as
/// docs/scenario.md shows them. `Datasets/scenarios/default.json` spells the defaults out
/// and any field may be left out of a file to keep its default. JSON keys are the
/// snake_case of these property names.
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

extension Scenario {
    /// Whether runs of the two scenarios on one seed meet the same users and content:
    /// they differ at most in `policies` and `platform`, which no device, user or feed
    /// draw reads (MODEL.md §2), so their devices can be compared one by one.
    public func meetsTheSameUsers(as other: Scenario) -> Bool {
        var a = self, b = other
        a.policies = PolicyParameters(); b.policies = PolicyParameters()
        a.platform = PlatformModel(); b.platform = PlatformModel()
        return a == b
    }
}

// MARK: - Population and user (MODEL.md §3)

/// The R1 / news-like weekday open weights (MODEL.md §10 rule 3; §3 default shape).
public let newsOpenWeights: [Double] =
    [1, 0.5, 0.3, 0.3, 0.5, 1, 3, 6, 7, 6, 5, 5, 6, 5, 5, 5, 6, 7, 8, 9, 9, 8, 5, 2]

public struct Archetype: ParameterSet {
    /// A placeholder entry: weight 1, one open a day (a mix names its own).
    public init() { self.init(weight: 1, medianOpensPerDay: 1) }

    public var weight: Double
    public var medianOpensPerDay: Double
    public var weekdayWeights: [Double] = newsOpenWeights
    public var weekendShift = TimeSpan.hours(1.5)
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

    public var model = UserModelKind.archetypes
    public var archetypes: [String: Archetype] = [
        "heavy": Archetype(weight: 0.15, medianOpensPerDay: 20),
        "daily": Archetype(weight: 0.45, medianOpensPerDay: 6),
        "occasional": Archetype(weight: 0.25, medianOpensPerDay: 1),
        "rare": Archetype(weight: 0.15, medianOpensPerDay: 1.0 / 7),
    ]
    public var rateSigma = 0.8
    public var chronotypeSd = TimeSpan.hours(1)
    public var routine = Routine()
    public var driftDay = 0
    public var driftShift = TimeSpan.hours(4)
    public var barOffShare = 0.15
    public var legacyIosShare = 0.0
    public var lowPowerShare = 0.0
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
    public var opens: [Entry] = [Entry(at: .hours(7.5)), Entry(at: .hours(12.5)), Entry(at: .hours(21))]
}

public struct UserBehaviour: ParameterSet {
    public init() {}

    public var sleepEnabled = true
    public var bedtimeMean = TimeSpan.hours(23.5)
    public var bedtimeSd = TimeSpan.hours(1)
    public var sleepMin = TimeSpan.hours(7)
    public var sleepMax = TimeSpan.hours(8)
    public var nightChecksPerNight = 0.1
    public var pReopen = 0.3
    public var reopenGapMean = TimeSpan.minutes(10)
    public var sessionBodyMean = TimeSpan.seconds(37)
    public var sessionTailShare = 0.098
    public var sessionTailMin = TimeSpan.seconds(240)
    public var sessionTailAlpha = 2.8
    public var sessionMax = TimeSpan.hours(2)
    public var forceQuitProbability = 0.02
}

// MARK: - Device (MODEL.md §4)

public struct DeviceModel: ParameterSet {
    public init() {}

    public var batteryEnabled = true
    public var batteryWh = 15.0
    public var initialLevel = 0.8
    public var idleW = 0.04
    public var screenOnW = 1.5
    public var chargeW = 15.0
    public var overnightChargeProbability = 0.85
    public var plugJitterSd = TimeSpan.minutes(30)
    public var topUpProbability = 0.3
    public var topUpMean = TimeSpan.minutes(45)
    public var lowBatteryLevel = 0.2
    public var lowPowerProbability = 0.5
    public var lowPowerOffLevel = 0.8
    public var screenSessionsPerDay = 50.0
    public var screenSessionMedian = TimeSpan.seconds(60)
    public var screenSessionSigma = 1.5
}

public struct NetworkModel: ParameterSet {
    public init() {}

    public var homeWifiShare = 0.9
    public var homeFrom = TimeSpan.hours(19)
    public var homeUntil = TimeSpan.hours(8)
    public var workWifiShare = 0.5
    public var workFrom = TimeSpan.hours(9)
    public var workUntil = TimeSpan.hours(17)
    public var nr5gShare = 0.3
    public var offlineSpellsPerDay = 2.0
    public var offlineMean = TimeSpan.minutes(10)
    public var latencyMedianWifi = TimeSpan.seconds(0.15)
    public var latencyMedianLte = TimeSpan.seconds(0.30)
    public var latencyMedianNr5g = TimeSpan.seconds(0.25)
    public var latencySigma = 0.8
    public var bandwidthWifiMbps = 30.0
    public var bandwidthLteMbps = 13.0
    public var bandwidthNr5gMbps = 100.0
}

// MARK: - Content (MODEL.md §5)

public struct ContentModel: ParameterSet {
    public init() {}

    public var kind = ContentKind.news
    public var itemsPerDay = 48.0
    public var hourlyWeights: [Double] =
        [0.5, 0.3, 0.2, 0.2, 0.3, 1, 3, 5, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5, 4, 3, 3, 2, 1, 0.7]
    public var itemSizeMedianKilobytes = 4.5
    public var itemSizeSigma = 0.5
    public var sync = SyncContentParameters()
    public var catalog = CatalogParameters()
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

    public var task = TaskModelKind.requests
    public var launch = TimeSpan.seconds(0.3)
    public var launchJ = 0.5
    public var secondRequestProbability = 0.5
    public var failureProbability = 0.01
    public var hangProbability = 0.003
    public var payloadFixedKilobytes = 20.0
    public var sync = SyncKind.delta
    public var fullSetItems = 50
    public var status = StatusHonesty.honest
    public var resubmits = true
    public var handlesExpiration = true
    public var lognormalMedian = TimeSpan.seconds(0.8)
    public var lognormalSigma = 1.0
    public var lognormalFailureProbability = 0.02
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

    public var perHour = 2
    public var dropProbability = 0.05
    public var delayMedian = TimeSpan.seconds(2)
    public var delaySigma = 1.0
}

// MARK: - Energy (MODEL.md §8)

public struct EnergyModel: ParameterSet {
    public init() {}

    public var ltePromotion = TimeSpan.seconds(0.26)
    public var ltePromotionW = 1.2
    public var lteActiveW = 1.06
    public var lteTail = TimeSpan.seconds(11.6)
    public var lteTailW = 1.06
    public var wifiActiveW = 0.4
    public var wifiTail = TimeSpan.seconds(0.24)
    public var wifiTailW = 0.4
    public var nr5gPowerFactor = 2.5
}

// MARK: - Policy parameters (MODEL.md §7): `PolicyParameters` in ComponentParameters.swift, each
// policy's parameters in its own file.
