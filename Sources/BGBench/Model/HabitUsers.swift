/// Synthetic users built unlike MODEL.md's (`bgbench habits`; Datasets/README.md,
/// "Traces"): evaluation away from the model a policy may have been tuned on. MODEL.md's
/// users open the app as a Poisson process over a smooth diurnal curve, or at a few fixed
/// times; these keep habits that come and go. Every number below is this generator's own
/// assumption (no data set was fitted):
///
/// - **Habits**: 1 + binomial(3, ½) of them (1 to 4). A habit has a time of day, uniform
///   inside one of four slots chosen uniformly (morning 06:00–09:30, midday 11:30–14:00,
///   late afternoon 16:30–19:30, evening 20:00–23:30); a spread, the sd of a normal jitter,
///   log-uniform from 5 to 45 min; a probability of being kept on a given day, uniform from
///   0.4 to 0.95; and, with probability 0.4, it holds on weekdays only (a commute).
/// - **Background opens**: a Poisson number a day, the user's mean lognormal (median 1.5,
///   sigma 0.8), uniform over waking hours: from a wake-up time uniform in 06:00–08:30 to
///   a bedtime uniform in 22:00–00:30.
/// - **Reopens**: after each open, with probability 0.2, one more an exponential time (mean
///   5 min) after its session ends.
/// - **Weekends** (days 5 and 6 of each week; day 0 is a Monday, MODEL.md §2):
///   weekday-only habits are skipped; the other habits and the waking hours run later by
///   the user's weekend shift, uniform from 0 to 2 h.
/// - **Vacation weeks**: 2 with probability 0.2, 1 with probability 0.5, else none, each a
///   uniform week from the third on (two draws may pick the same week; a run of fewer than
///   three weeks has none). In one, each habit is kept with a third of its probability and
///   runs 1 h later, and background opens double.
/// - **A routine shift**: with probability 0.3, from a day uniform in the last three
///   quarters of the run, one habit (chosen uniformly) moves 1 to 4 h (uniform) earlier or
///   later, for good (a new job, a new commute).
/// - **Sessions**: lognormal, median 30 s, sigma 1.2, at most 2 h.
///
/// Each device draws from its own stream (run seed, device index, ``StreamPurpose/habits``),
/// so device i is the same user whatever `devices` is. The arithmetic uses only the
/// project's generator, IEEE basic operations and ``PortableMath`` (no libm), and
/// timestamps are rounded to the millisecond and sessions to the tenth of a second as
/// integers: the same seed gives the same bytes on every machine.
public enum HabitUsers {
    /// The trace's columns, as `--opens-trace` reads them.
    public static let header = "device,timestamp,session_seconds"

    /// The four slots a habit's time of day falls in, in hours after midnight.
    static let slots: [(from: Double, to: Double)] = [(6, 9.5), (11.5, 14), (16.5, 19.5), (20, 23.5)]
    static let hour = 3600.0, day = 86400.0

    /// One row of the trace: its time in milliseconds since t = 0 (day 0, 00:00 local) and
    /// its session in tenths of a second.
    public struct Open: Equatable, Sendable {
        public var milliseconds: Int64
        public var sessionTenths: Int64
    }

    /// A habit as drawn.
    struct Habit {
        /// Seconds after midnight; the sd of its jitter, seconds; the daily probability of
        /// being kept.
        var at: Double, spread: Double, keep: Double
        var weekdaysOnly: Bool
    }

    /// A user as drawn, before any day.
    struct User {
        var habits: [Habit]
        /// Mean background opens a day (doubled in a vacation week).
        var background: Double
        /// Waking hours, seconds after midnight (bedtime may pass midnight).
        var wake: Double, bed: Double
        /// How much later weekends run, seconds.
        var weekendShift: Double
        /// Week indices of vacation weeks.
        var vacations: Set<Int>
        /// From `shiftDay` on, habit `shiftHabit` runs `shift` seconds later (nil: no shift).
        var shiftDay: Int? = nil, shiftHabit = 0, shift = 0.0
    }
}

extension HabitUsers.User {
    /// A user drawn from `random`, for a run of `days` days.
    init(days: Int, random: inout RandomStream) {
        let count = 1 + (0..<3).reduce(0) { n, _ in n + (random.bernoulli(0.5) ? 1 : 0) }
        habits = (0..<count).map { _ in
            let slot = HabitUsers.slots[random.index(below: HabitUsers.slots.count)]
            let at = HabitUsers.uniform(&random, slot.from, slot.to) * HabitUsers.hour
            let spread =
                60 * PortableMath.exp(HabitUsers.uniform(&random, PortableMath.log(5), PortableMath.log(45)))
            let keep = HabitUsers.uniform(&random, 0.4, 0.95)
            return HabitUsers.Habit(at: at, spread: spread, keep: keep, weekdaysOnly: random.bernoulli(0.4))
        }
        background = 1.5 * PortableMath.exp(0.8 * HabitUsers.normal(&random))
        wake = HabitUsers.uniform(&random, 6, 8.5) * HabitUsers.hour
        bed = HabitUsers.uniform(&random, 22, 24.5) * HabitUsers.hour
        weekendShift = HabitUsers.uniform(&random, 0, 2) * HabitUsers.hour
        let draw = random.uniform()
        let vacationWeeks = draw < 0.2 ? 2 : draw < 0.7 ? 1 : 0
        let weeks = days / 7
        vacations = []
        if weeks > 2 {
            for _ in 0..<vacationWeeks { vacations.insert(2 + random.index(below: weeks - 2)) }
        }
        if random.bernoulli(0.3) {
            let quarter = Double(days) / 4
            shiftDay = Int(HabitUsers.uniform(&random, quarter, Double(days)))
            shiftHabit = random.index(below: habits.count)
            shift = (random.bernoulli(0.5) ? 1 : -1) * HabitUsers.uniform(&random, 1, 4) * HabitUsers.hour
        }
    }

    /// The opens of day `d` before reopens, seconds since t = 0, in no order.
    func opens(day d: Int, random: inout RandomStream, into opens: inout [Double]) {
        let weekend = d % 7 >= 5, vacation = vacations.contains(d / 7)
        let later = (weekend ? weekendShift : 0) + (vacation ? HabitUsers.hour : 0)
        let start = Double(d) * HabitUsers.day
        for (i, habit) in habits.enumerated() {
            if weekend && habit.weekdaysOnly { continue }
            guard random.uniform() < habit.keep * (vacation ? 1.0 / 3 : 1) else { continue }
            var at = habit.at + later + habit.spread * HabitUsers.normal(&random)
            if let shiftDay, d >= shiftDay, i == shiftHabit { at += shift }
            opens.append(start + at)
        }
        let background = HabitUsers.poisson(&random, mean: self.background * (vacation ? 2 : 1))
        for _ in 0..<background { opens.append(start + HabitUsers.uniform(&random, wake, bed) + later) }
    }
}

extension HabitUsers {
    /// Device `device`'s rows over `days` days, in time order: every open in [0, days).
    public static func opens(device: Int, days: Int, seed: UInt64) -> [Open] {
        var random = RandomStream(seed: seed, device: UInt64(device), purpose: .habits)
        let user = User(days: days, random: &random)
        var primary: [Double] = []
        for d in 0..<days { user.opens(day: d, random: &random, into: &primary) }
        primary.sort()
        var rows: [Open] = []
        rows.reserveCapacity(primary.count * 6 / 5 + 1)
        let horizon = Int64(days) * 86_400_000
        func add(_ at: Double, _ session: Double) {
            let milliseconds = Int64((at * 1000).rounded())
            if milliseconds >= 0 && milliseconds < horizon {
                rows.append(Open(milliseconds: milliseconds, sessionTenths: Int64((session * 10).rounded())))
            }
        }
        for at in primary {
            let length = session(&random)
            add(at, length)
            if random.bernoulli(0.2) {
                add(at + length + 300 * -PortableMath.log(random.uniformPositive()), session(&random))
            }
        }
        rows.sort { ($0.milliseconds, $0.sessionTenths) < ($1.milliseconds, $1.sessionTenths) }
        return rows
    }

    /// Device `device`'s id in the trace: `h0001` for device 0.
    public static func deviceID(_ device: Int) -> String {
        let number = String(device + 1)
        return "h" + String(repeating: "0", count: max(0, 4 - number.count)) + number
    }

    /// The trace's CSV lines of device `device` (no header), each ending in a line feed,
    /// and how many there are.
    public static func csvLines(device: Int, days: Int, seed: UInt64) -> (text: String, opens: Int) {
        let id = deviceID(device), opens = opens(device: device, days: days, seed: seed)
        var text = ""
        for open in opens {
            text +=
                id + "," + decimal(open.milliseconds, digits: 3) + "," + decimal(open.sessionTenths, digits: 1)
                + "\n"
        }
        return (text, opens.count)
    }

    /// The whole trace of `devices` devices: the header, then each device's lines, handed
    /// to `write` one device at a time (so a large trace is never held whole). Returns the
    /// number of opens.
    @discardableResult
    public static func writeTrace(devices: Int, days: Int, seed: UInt64, to write: (String) throws -> Void) rethrows
        -> Int
    {
        try write(header + "\n")
        var total = 0
        for device in 0..<devices {
            let (text, opens) = csvLines(device: device, days: days, seed: seed)
            try write(text)
            total += opens
        }
        return total
    }

    /// The whole trace as one text (tests; small traces).
    public static func trace(devices: Int, days: Int, seed: UInt64) -> String {
        var text = ""
        writeTrace(devices: devices, days: days, seed: seed) { text += $0 }
        return text
    }

    /// A non-negative integer count of 10^-digits as a decimal: (1234, 3) is `1.234`.
    static func decimal(_ value: Int64, digits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let fraction = String(value % scale)
        return String(value / scale) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    static func uniform(_ random: inout RandomStream, _ low: Double, _ high: Double) -> Double {
        low + (high - low) * random.uniform()
    }

    /// A standard normal draw by Marsaglia's polar method (one value a call; no libm).
    static func normal(_ random: inout RandomStream) -> Double {
        while true {
            let u = 2 * random.uniform() - 1, v = 2 * random.uniform() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 { return u * (-2 * PortableMath.log(s) / s).squareRoot() }
        }
    }

    /// A Poisson draw as the count of uniforms whose running product stays above e^−mean
    /// (the means here are small).
    static func poisson(_ random: inout RandomStream, mean: Double) -> Int {
        let limit = PortableMath.exp(-mean)
        var count = 0, product = random.uniform()
        while product > limit {
            count += 1
            product *= random.uniform()
        }
        return count
    }

    /// A session length, seconds: lognormal, median 30 s, sigma 1.2, at most 2 h.
    static func session(_ random: inout RandomStream) -> Double {
        min(2 * hour, 30 * PortableMath.exp(1.2 * normal(&random)))
    }
}
