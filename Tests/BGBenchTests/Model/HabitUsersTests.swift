import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// `bgbench habits` (issue 24 item 7): the habits users of HabitUsers as an opens trace.
/// The statistics are checked at a fixed seed against the numbers the model states (its
/// doc comment, Datasets/README.md), each with a named tolerance of a few standard errors.
@Suite struct HabitUsersTests {
    /// Users drawn as `opens(device:days:seed:)` draws them.
    static func users(_ count: Int, days: Int, seed: UInt64 = 2026) -> [HabitUsers.User] {
        (0..<count).map { device in
            var random = RandomStream(seed: seed, device: UInt64(device), purpose: .habits)
            return HabitUsers.User(days: days, random: &random)
        }
    }

    // MARK: The command

    @Test func sameSeedSameBytesAnotherSeedOthers() throws {
        let a = bgbench(["habits", "--devices", "20", "--days", "28", "--seed", "7"])
        let b = bgbench(["habits", "--devices", "20", "--days", "28", "--seed", "7"])
        let c = bgbench(["habits", "--devices", "20", "--days", "28", "--seed", "8"])
        #expect(a.code == 0 && a.errors.isEmpty)
        #expect(a.output == b.output)
        #expect(a.output != c.output)
        #expect(a.output.hasPrefix("device,timestamp,session_seconds\nh0001,"))
        // Device i is the same user whatever the fleet: 20 devices begin with 5's rows.
        let five = bgbench(["habits", "--devices", "5", "--days", "28", "--seed", "7"]).output
        #expect(a.output.hasPrefix(five))
    }

    /// The bytes of one small trace, as written on Linux x86-64 when the command was made:
    /// another machine (macOS, arm64) must write the same, since nothing here calls libm.
    /// A change of the model moves it, and says so in its commit.
    @Test func theBytesAreTheSameOnEveryMachine() {
        let text = HabitUsers.trace(devices: 20, days: 28, seed: 7)
        let digest = SHA256.hex(Array(text.utf8))
        #expect(digest == "95576f3d0e30639a815acb5791a7da448600e4309b72eb5112b8a7dd7356bcd7")
    }

    @Test func theTraceValidatesAndRuns() throws {
        let folder = freshFolder("habits")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let trace = folder + "/habits.csv"
        let wrote = bgbench(["habits", "--devices", "30", "--days", "21", "--seed", "3", "--out", trace])
        let opens = HabitUsers.trace(devices: 30, days: 21, seed: 3).split(separator: "\n").count - 1
        #expect(wrote.code == 0)
        #expect(wrote.output == "wrote \(trace): 30 devices, 21 days, \(opens) opens (seed 3)\n")
        #expect(try String(contentsOfFile: trace, encoding: .utf8) == HabitUsers.trace(devices: 30, days: 21, seed: 3))
        let validated = bgbench(["validate", trace])
        #expect(validated.code == 0, "\(validated.errors)")
        #expect(validated.output.hasPrefix("ok: \(trace): trace of 30 devices, \(opens) opens over "))
        let run = bgbench([
            "--opens-trace", trace, "--policy", "fixed,adaptive", "--out", folder + "/run", "--quiet",
        ])
        #expect(run.code == 0, "\(run.errors)")
        let summary = try csvRecords(folder + "/run/summary.csv")
        #expect(Set(summary.map { $0["archetype"]! }) == ["all", "trace"])
    }

    @Test func badFlagsGetOneLineNamingTheFlag() throws {
        let cases: [([String], String)] = [
            (["--devices", "0"], "invalid value '0' for '--devices': expected an integer from 1 to 100000"),
            (["--days", "36500"], "invalid value '36500' for '--days': expected an integer from 1 to 36499"),
            (["--seed", "-1"], "invalid value '-1' for '--seed': expected an integer from 0 to 18446744073709551615"),
            (["--devices", "x"], "invalid value 'x' for '--devices': expected an integer from 1 to 100000"),
            (["--out", ""], "invalid value '' for '--out': expected a trace CSV file to write"),
            (["--device", "3"], "unknown option '--device' for 'habits' (did you mean '--devices'?)"),
            (
                ["--devices", "100000", "--days", "365"],
                "invalid value '100000' for '--devices': expected at most 27397 devices at --days 365 "
                    + "(a trace of at most 10000000 device-days)"
            ),
        ]
        for (arguments, message) in cases {
            let result = bgbench(["habits"] + arguments)
            #expect(result.code == 64, "\(arguments)")
            #expect(result.errors == "error: \(message)\nsee 'bgbench --help'\n", "\(arguments)")
            #expect(result.output.isEmpty)
        }
    }

    @Test func anExistingFileIsKeptWithoutForce() throws {
        let folder = freshFolder("habits-out")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/mine.csv"
        try "device,timestamp\nu1,1\n".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = bgbench(["habits", "--devices", "2", "--days", "7", "--out", path])
        #expect(refused.code == 73)
        #expect(refused.errors == "error: '\(path)' exists: not overwritten (use --force to replace it)\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "device,timestamp\nu1,1\n")
        let forced = bgbench(["habits", "--devices", "2", "--days", "7", "--out", path, "--force"])
        #expect(forced.code == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == HabitUsers.trace(devices: 2, days: 7, seed: 2026))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["mine.csv"], "no temporary file left")
    }

    // MARK: The format

    @Test func rowsAreFormattedByHand() {
        #expect(HabitUsers.decimal(152_315_367, digits: 3) == "152315.367")
        #expect(HabitUsers.decimal(5, digits: 3) == "0.005")
        #expect(HabitUsers.decimal(0, digits: 1) == "0.0")
        #expect(HabitUsers.decimal(72_000, digits: 1) == "7200.0")
        #expect(HabitUsers.deviceID(0) == "h0001")
        #expect(HabitUsers.deviceID(9998) == "h9999")
        #expect(HabitUsers.deviceID(9999) == "h10000")
    }

    /// PortableMath's exp and log agree with the platform's to a few units in the last place.
    @Test func portableMathAgreesWithLibm() {
        func ulps(_ a: Double, _ b: Double) -> Double { abs(a - b) / b.ulp }
        var worst = 0.0
        for i in -4000...4000 {
            let x = Double(i) / 100
            worst = max(worst, ulps(PortableMath.exp(x), Foundation.exp(x)))
        }
        for i in 1...10000 {
            let x = Double(i) * 0.0137
            worst = max(worst, ulps(PortableMath.log(x), Foundation.log(x)))
            let small = 0x1p-53 * Double(i)
            worst = max(worst, ulps(PortableMath.log(small), Foundation.log(small)))
        }
        #expect(worst <= 4, "worst \(worst) ulps")
        #expect(PortableMath.exp(0) == 1 && PortableMath.log(1) == 0)
        #expect(PortableMath.log(0) == -.infinity && PortableMath.exp(-800) == 0)
    }

    // MARK: The model's stated parameters, at seed 2026

    /// 1 + binomial(3, ½) habits: shares 1/8, 3/8, 3/8, 1/8 of users (2,000 users: a
    /// share's standard error is at most 0.011; tolerance 0.035). Each habit: in one of
    /// the four slots, a spread of 5–45 min, kept 0.4–0.95 of days, weekday-only for 0.4
    /// of habits (about 5,000: se 0.007; tolerance 0.025).
    @Test func habitsFollowTheStatedShares() {
        let users = Self.users(2000, days: 91)
        let shareTolerance = 0.035
        for (count, share) in [(1, 0.125), (2, 0.375), (3, 0.375), (4, 0.125)] {
            let observed = Double(users.filter { $0.habits.count == count }.count) / 2000
            #expect(abs(observed - share) < shareTolerance, "\(count) habits: \(observed)")
        }
        let habits = users.flatMap(\.habits)
        let slots: [ClosedRange<Double>] = [6...9.5, 11.5...14, 16.5...19.5, 20...23.5]
        #expect(habits.allSatisfy { h in slots.contains { $0.contains(h.at / 3600) } })
        for slot in slots {
            let share = Double(habits.filter { slot.contains($0.at / 3600) }.count) / Double(habits.count)
            #expect(abs(share - 0.25) < 0.025, "slot \(slot): \(share)")
        }
        #expect(habits.allSatisfy { (300...2700).contains($0.spread) && (0.4...0.95).contains($0.keep) })
        let weekdaysOnly = Double(habits.filter(\.weekdaysOnly).count) / Double(habits.count)
        #expect(abs(weekdaysOnly - 0.4) < 0.025, "weekday-only share \(weekdaysOnly)")
        // Log-uniform spread: half the habits below the geometric mean of 5 and 45 min, 15 min.
        let belowMiddle = Double(habits.filter { $0.spread < 900 }.count) / Double(habits.count)
        #expect(abs(belowMiddle - 0.5) < 0.025, "spread below 15 min: \(belowMiddle)")
    }

    /// Vacation weeks: none for 0.3 of users, one for 0.5 (a little more, as two draws may
    /// meet), two for 0.2 less those; never in the first two weeks. Routine shifts: 0.3 of
    /// users, after the first quarter, by 1–4 h. Background means: median 1.5.
    @Test func usersFollowTheStatedShares() {
        let users = Self.users(2000, days: 91)
        let tolerance = 0.035
        let none = Double(users.filter { $0.vacations.isEmpty }.count) / 2000
        let two = Double(users.filter { $0.vacations.count == 2 }.count) / 2000
        #expect(abs(none - 0.3) < tolerance, "no vacation: \(none)")
        // Two draws among 11 weeks meet with probability 1/11: 0.2 · 10/11 = 0.18.
        #expect(abs(two - 0.2 * 10 / 11) < tolerance, "two vacation weeks: \(two)")
        #expect(users.allSatisfy { $0.vacations.allSatisfy { (2...12).contains($0) } })
        let shifted = users.filter { $0.shiftDay != nil }
        #expect(abs(Double(shifted.count) / 2000 - 0.3) < tolerance, "shifted: \(shifted.count)")
        #expect(shifted.allSatisfy { (22..<91).contains($0.shiftDay!) && (3600...14400).contains(abs($0.shift)) })
        let backgrounds = users.map(\.background).sorted()
        #expect(abs(backgrounds[1000] - 1.5) < 0.1, "median background \(backgrounds[1000])")
        #expect(Self.users(50, days: 20).allSatisfy { $0.vacations.isEmpty }, "fewer than three weeks: none")
    }

    /// The trace as a whole: a median of 3.0–4.5 opens a device-day (stated: background
    /// median 1.5, 2.5 habits kept 0.675 of days, reopens 0.2: about 3.7), sessions of
    /// median 30 s (±2 s) never above 2 h, and weekends at 0.70–0.92 of a weekday's opens
    /// (0.4 of habits skipped: about 0.82).
    @Test func theTraceHasTheStatedLevels() {
        let days = 91
        var perDevice: [Double] = [], sessions: [Int64] = []
        var weekday = 0, weekend = 0
        for device in 0..<500 {
            let opens = HabitUsers.opens(device: device, days: days, seed: 2026)
            perDevice.append(Double(opens.count) / Double(days))
            for open in opens {
                sessions.append(open.sessionTenths)
                if (open.milliseconds / 86_400_000) % 7 >= 5 { weekend += 1 } else { weekday += 1 }
            }
            #expect(zip(opens, opens.dropFirst()).allSatisfy { $0.milliseconds <= $1.milliseconds })
            #expect(opens.allSatisfy { (0..<Int64(days) * 86_400_000).contains($0.milliseconds) })
        }
        perDevice.sort()
        sessions.sort()
        #expect((3.0...4.5).contains(perDevice[250]), "median opens a day \(perDevice[250])")
        #expect(abs(Double(sessions[sessions.count / 2]) / 10 - 30) <= 2, "median session")
        #expect(sessions.last! <= 72_000)
        // 13 weeks: 65 weekdays, 26 weekend days.
        let ratio = (Double(weekend) / 26) / (Double(weekday) / 65)
        #expect((0.70...0.92).contains(ratio), "weekend/weekday opens \(ratio)")
    }

    /// Hand-made users, one rule each: a weekday-only habit never opens at weekends; a
    /// vacation week keeps a habit a third as often, an hour later; a routine shift moves
    /// its habit from its day on.
    @Test func eachRuleActsOnItsOwn() {
        func opensByDay(_ user: HabitUsers.User, days: Int) -> [[Double]] {
            var random = RandomStream(seed: 1, device: 0, purpose: .habits)
            return (0..<days).map { d in
                var opens: [Double] = []
                user.opens(day: d, random: &random, into: &opens)
                return opens.map { $0 - Double(d) * 86400 }
            }
        }
        let eight = HabitUsers.Habit(at: 8 * 3600, spread: 60, keep: 0.9, weekdaysOnly: true)
        var user = HabitUsers.User(
            habits: [eight], background: 0, wake: 7 * 3600, bed: 23 * 3600, weekendShift: 3600, vacations: [])
        let days = 7 * 40
        let plain = opensByDay(user, days: days)
        #expect(plain.indices.filter { $0 % 7 >= 5 }.allSatisfy { plain[$0].isEmpty }, "weekday-only")
        let weekdays = plain.indices.filter { $0 % 7 < 5 }
        let kept = Double(weekdays.filter { !plain[$0].isEmpty }.count) / Double(weekdays.count)
        #expect(abs(kept - 0.9) < 0.05, "kept \(kept) of weekdays")
        #expect(weekdays.allSatisfy { plain[$0].allSatisfy { abs($0 - 8 * 3600) < 600 } })

        user.habits[0].weekdaysOnly = false
        let weekends = opensByDay(user, days: days).enumerated().filter { $0.offset % 7 >= 5 }.flatMap(\.element)
        #expect(weekends.count > 50 && weekends.allSatisfy { abs($0 - 9 * 3600) < 600 }, "an hour later")

        user.vacations = Set(0..<40)
        let away = opensByDay(user, days: days).flatMap { $0 }
        #expect(abs(Double(away.count) / Double(days) - 0.3) < 0.06, "a third of 0.9: \(away.count)")
        #expect(away.allSatisfy { abs($0 - 9 * 3600) < 600 || abs($0 - 10 * 3600) < 600 })

        user.vacations = []
        user.shiftDay = 140
        user.shift = -3 * 3600
        let shifted = opensByDay(user, days: days)
        #expect(shifted[..<140].joined().allSatisfy { $0 > 7.5 * 3600 })
        #expect(shifted[140...].joined().count > 100 && shifted[140...].joined().allSatisfy { $0 < 7 * 3600 })

        user.habits = []
        user.background = 2
        let background = opensByDay(user, days: days)
        #expect(abs(Double(background.joined().count) / Double(days) - 2) < 0.25)
        let weekdayBackground = background.indices.filter { $0 % 7 < 5 }.flatMap { background[$0] }
        #expect(weekdayBackground.allSatisfy { (7 * 3600...23 * 3600).contains($0) })
    }
}
