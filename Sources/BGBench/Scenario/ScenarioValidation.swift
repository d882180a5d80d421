/// A value that decodes but is out of its range, by JSON path (`content.hourly_weights[3]`).
public struct ScenarioProblem: Sendable, Equatable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

extension Scenario {
    /// Range checks beyond what the types enforce; empty when the scenario is valid.
    /// The loader reports these with the file position of each path.
    public func validate() -> [ScenarioProblem] {
        var v = ScenarioValidator()
        let p = population
        if p.model == .archetypes && p.archetypes.isEmpty { v.fail("population.archetypes", "expected at least one archetype") }
        for (name, archetype) in p.archetypes.sorted(by: { $0.key < $1.key }) {
            let path = "population.archetypes.\(name)"
            v.check(archetype.weight, in: 0..., path + ".weight")
            v.check(archetype.medianOpensPerDay, in: 0...10_000, path + ".median_opens_per_day")
            v.checkWeights(archetype.weekdayWeights, count: 24, path + ".weekday_weights")
            v.check(archetype.weekendShift, in: TimeSpan.hours(-24)...TimeSpan.hours(24), path + ".weekend_shift")
            v.check(archetype.weekendLevel, in: 0...100, path + ".weekend_level")
        }
        if p.model == .archetypes && !p.archetypes.isEmpty && !(p.archetypes.values.reduce(0) { $0 + $1.weight } > 0) {
            v.fail("population.archetypes", "expected archetype weights with a positive sum")
        }
        v.check(p.rateSigma, in: 0...5, "population.rate_sigma")
        v.check(p.chronotypeSd, in: TimeSpan.hours(0)...TimeSpan.hours(12), "population.chronotype_sd")
        if p.routine.opens.count > 16 { v.fail("population.routine.opens", "expected at most 16 entries, got \(p.routine.opens.count)") }
        for (i, entry) in p.routine.opens.enumerated() {
            let path = "population.routine.opens[\(i)]"
            v.check(entry.at, in: TimeSpan.hours(0)...TimeSpan.hours(24), path + ".at")
            v.check(entry.jitterSd, in: TimeSpan.hours(0)...TimeSpan.hours(6), path + ".jitter_sd")
            v.check(entry.probability, in: 0...1, path + ".probability")
        }
        if p.driftDay < 0 { v.fail("population.drift_day", "\(p.driftDay) is out of range: expected 0 (never) or a day number") }
        v.check(p.driftShift, in: TimeSpan.hours(-24)...TimeSpan.hours(24), "population.drift_shift")
        v.check(p.barOffShare, in: 0...1, "population.bar_off_share")
        v.check(p.legacyIosShare, in: 0...1, "population.legacy_ios_share")
        if p.legacyIosShare > 0 && platform.name != IOSBGTask.name {
            v.fail("population.legacy_ios_share", "\(v.format(p.legacyIosShare)) needs platform ios-bgtask: the share of iOS 12 devices that use ios-fetch mixes into an ios-bgtask fleet (platform is \(platform.name)); expected 0")
        }

        for (i, zone) in p.utcOffsets.enumerated() {
            v.check(zone.offset, in: TimeSpan.hours(-14)...TimeSpan.hours(14), "population.utc_offsets[\(i)].offset")
            v.check(zone.share, in: 0...1, "population.utc_offsets[\(i)].share")
        }
        if p.utcOffsets.isEmpty || !(p.utcOffsets.reduce(0) { $0 + $1.share } > 0) {
            v.fail("population.utc_offsets", "expected at least one offset with a positive share")
        }

        let u = user
        v.check(u.bedtimeMean, in: TimeSpan.hours(0)...TimeSpan.hours(48), "user.bedtime_mean")
        v.check(u.bedtimeSd, in: TimeSpan.hours(0)...TimeSpan.hours(12), "user.bedtime_sd")
        v.check(u.sleepMin, in: TimeSpan.hours(0)...TimeSpan.hours(20), "user.sleep_min")
        v.check(u.sleepMax, in: TimeSpan.hours(u.sleepMin.hours)...TimeSpan.hours(20), "user.sleep_max")
        v.check(u.nightChecksPerNight, in: 0...100, "user.night_checks_per_night")
        v.check(u.pReopen, in: 0...0.95, "user.p_reopen")
        v.check(u.reopenGapMean, in: TimeSpan.seconds(0)...TimeSpan.seconds(86_400), "user.reopen_gap_mean")
        v.check(u.sessionBodyMean, in: TimeSpan.seconds(0)...TimeSpan.seconds(86_400), "user.session_body_mean")
        v.check(u.sessionTailShare, in: 0...1, "user.session_tail_share")
        v.check(u.sessionTailMin, in: TimeSpan.seconds(0.001)...TimeSpan.seconds(86_400), "user.session_tail_min")
        v.check(u.sessionTailAlpha, in: 0.1...100, "user.session_tail_alpha")
        v.check(u.sessionMax, in: TimeSpan.seconds(0)...TimeSpan.seconds(86_400), "user.session_max")
        v.check(u.forceQuitProbability, in: 0...1, "user.force_quit_probability")

        let d = device
        v.check(d.batteryWh, in: 0.1...1000, "device.battery_wh")
        v.check(d.initialLevel, in: 0...1, "device.initial_level")
        v.check(d.idleW, in: 0...100, "device.idle_w")
        v.check(d.screenOnW, in: 0...100, "device.screen_on_w")
        v.check(d.chargeW, in: 0...1000, "device.charge_w")
        v.check(d.overnightChargeProbability, in: 0...1, "device.overnight_charge_probability")
        v.check(d.plugJitterSd, in: TimeSpan.hours(0)...TimeSpan.hours(12), "device.plug_jitter_sd")
        v.check(d.topUpProbability, in: 0...1, "device.top_up_probability")
        v.check(d.topUpMean, in: TimeSpan.hours(0)...TimeSpan.hours(24), "device.top_up_mean")
        v.check(d.lowBatteryLevel, in: 0...1, "device.low_battery_level")
        v.check(d.lowPowerProbability, in: 0...1, "device.low_power_probability")
        v.check(d.lowPowerOffLevel, in: 0...1, "device.low_power_off_level")
        v.check(d.screenSessionsPerDay, in: 0...10_000, "device.screen_sessions_per_day")
        v.check(d.screenSessionMedian, in: TimeSpan.seconds(0)...TimeSpan.seconds(86_400), "device.screen_session_median")
        v.check(d.screenSessionSigma, in: 0...5, "device.screen_session_sigma")

        let n = network
        v.check(n.homeWifiShare, in: 0...1, "network.home_wifi_share")
        v.check(n.homeFrom, in: TimeSpan.hours(0)...TimeSpan.hours(24), "network.home_from")
        v.check(n.homeUntil, in: TimeSpan.hours(0)...TimeSpan.hours(24), "network.home_until")
        v.check(n.workWifiShare, in: 0...1, "network.work_wifi_share")
        v.check(n.workFrom, in: TimeSpan.hours(0)...TimeSpan.hours(24), "network.work_from")
        v.check(n.workUntil, in: TimeSpan.hours(0)...TimeSpan.hours(24), "network.work_until")
        v.check(n.nr5gShare, in: 0...1, "network.nr5g_share")
        v.check(n.offlineSpellsPerDay, in: 0...1000, "network.offline_spells_per_day")
        v.check(n.offlineMean, in: TimeSpan.hours(0)...TimeSpan.hours(24), "network.offline_mean")
        for (value, path) in [(n.latencyMedianWifi, "wifi"), (n.latencyMedianLte, "lte"), (n.latencyMedianNr5g, "nr5g")] {
            v.check(value, in: TimeSpan.seconds(0)...TimeSpan.seconds(60), "network.latency_median_\(path)")
        }
        v.check(n.latencySigma, in: 0...5, "network.latency_sigma")
        for (value, path) in [(n.bandwidthWifiMbps, "wifi"), (n.bandwidthLteMbps, "lte"), (n.bandwidthNr5gMbps, "nr5g")] {
            v.check(value, in: 0.001...100_000, "network.bandwidth_\(path)_mbps")
        }

        v.check(content.itemsPerDay, in: 0...100_000, "content.items_per_day")
        v.checkWeights(content.hourlyWeights, count: 24, "content.hourly_weights")
        v.check(content.itemSizeMedianKilobytes, in: 0...1_000_000, "content.item_size_median_kilobytes")
        v.check(content.itemSizeSigma, in: 0...5, "content.item_size_sigma")
        v.check(content.sync.serverJobAt, in: TimeSpan.hours(0)...TimeSpan.hours(24), "content.sync.server_job_at")
        v.check(content.sync.targetAge, in: TimeSpan.hours(0)...TimeSpan.days(365), "content.sync.target_age")
        v.check(content.messages.burstMean, in: 1...1000, "content.messages.burst_mean")
        v.check(content.messages.burstGapMean, in: TimeSpan.seconds(0)...TimeSpan.days(1), "content.messages.burst_gap_mean")
        let cat = content.catalog
        v.check(cat.imageKilobytesPerItem, in: 0...1_000_000, "content.catalog.image_kilobytes_per_item")
        v.check(cat.transferDelayMedian, in: TimeSpan.seconds(0)...TimeSpan.days(7), "content.catalog.transfer_delay_median")
        v.check(cat.transferDelaySigma, in: 0...5, "content.catalog.transfer_delay_sigma")
        v.check(cat.transferRetry, in: TimeSpan.minutes(1)...TimeSpan.days(1), "content.catalog.transfer_retry")

        let a = app
        v.check(a.launch, in: TimeSpan.seconds(0)...TimeSpan.seconds(600), "app.launch")
        v.check(a.launchJ, in: 0...1000, "app.launch_j")
        v.check(a.secondRequestProbability, in: 0...1, "app.second_request_probability")
        v.check(a.failureProbability, in: 0...1, "app.failure_probability")
        v.check(a.hangProbability, in: 0...(1 - min(1, a.failureProbability)), "app.hang_probability",
                note: " (failure and hang are exclusive: their sum is at most 1)")
        v.check(a.payloadFixedKilobytes, in: 0...1_000_000, "app.payload_fixed_kilobytes")
        if a.fullSetItems < 0 { v.fail("app.full_set_items", "\(a.fullSetItems) is out of range: expected at least 0") }
        v.check(a.lognormalMedian, in: TimeSpan.seconds(0.000_001)...TimeSpan.seconds(3600), "app.lognormal_median")
        v.check(a.lognormalSigma, in: 0...5, "app.lognormal_sigma")
        v.check(a.lognormalFailureProbability, in: 0...1, "app.lognormal_failure_probability")
        let pr = a.processing
        v.check(pr.interval, in: TimeSpan.minutes(15)...TimeSpan.days(365), "app.processing.interval")
        v.check(pr.work, in: TimeSpan.seconds(1)...TimeSpan.days(1), "app.processing.work")
        v.check(pr.deadline, in: TimeSpan.minutes(1)...TimeSpan.days(365), "app.processing.deadline")
        v.check(pr.powerW, in: 0...100, "app.processing.power_w")

        if PlatformRegistry.named(platform.name) == nil {
            v.fail("platform.name", "unknown platform '\(platform.name)': expected one of \(PlatformRegistry.all.map { $0.name }.joined(separator: ", "))")
        }
        let i = platform.iosBgtask
        v.check(i.budgetScale, in: 0...1000, "platform.ios_bgtask.budget_scale")
        v.check(i.budgetCap, in: 0...1000, "platform.ios_bgtask.budget_cap")
        v.check(i.usageHalfLife, in: TimeSpan.hours(1)...TimeSpan.hours((24 * 365)), "platform.ios_bgtask.usage_half_life")
        v.check(i.minSpacing, in: TimeSpan.hours(0)...TimeSpan.hours(24), "platform.ios_bgtask.min_spacing")
        v.check(i.runtimeLimit, in: TimeSpan.seconds(1)...TimeSpan.seconds(3600), "platform.ios_bgtask.runtime_limit")
        for (value, key) in [(i.penaltyKilled, "penalty_killed"), (i.penaltyExpired, "penalty_expired"),
                             (i.penaltyFailed, "penalty_failed"), (i.penaltyFalseNewData, "penalty_false_new_data")] {
            v.check(value, in: 0...1, "platform.ios_bgtask.\(key)")
        }
        v.check(i.rewardNewData, in: 1...10, "platform.ios_bgtask.reward_new_data")
        v.check(i.midnightRecovery, in: 1...10, "platform.ios_bgtask.midnight_recovery")
        v.check(i.multiplierFloor, in: 0.000_001...1, "platform.ios_bgtask.multiplier_floor")
        if platform.unrestricted.dailyCap < 0 {
            v.fail("platform.unrestricted.daily_cap", "\(platform.unrestricted.dailyCap) is out of range: expected 0 (no cap) or more")
        }
        v.check(platform.unrestricted.runtimeLimit, in: TimeSpan.seconds(1)...TimeSpan.seconds(3600), "platform.unrestricted.runtime_limit")
        if case .every(let interval) = platform.iosFetch.minimumInterval, !(TimeSpan.seconds(0)...TimeSpan.days(7)).contains(interval) {
            v.fail("platform.ios_fetch.minimum_interval", "\(interval) is out of range: expected \"never\" or a duration from 0s to 7d")
        }
        let w = platform.androidWorkmanager, wp = "platform.android_workmanager."
        v.check(w.minInterval, in: TimeSpan.minutes(1)...TimeSpan.days(7), wp + "min_interval")
        v.check(w.minFlex, in: TimeSpan.seconds(0)...w.minInterval, wp + "min_flex")
        v.check(w.runtimeLimit, in: TimeSpan.seconds(1)...TimeSpan.hours(24), wp + "runtime_limit")
        for (values, key) in [(w.screenTimeThresholds, "screen_time_thresholds"), (w.elapsedTimeThresholds, "elapsed_time_thresholds"),
                              (w.quotaWindows, "quota_windows")] {
            guard values.count == 5 else {
                v.fail(wp + key, "expected 5 durations (active, working_set, frequent, rare, restricted), got \(values.count)")
                continue
            }
            for (i, value) in values.enumerated() {
                v.check(value, in: TimeSpan.seconds(key == "quota_windows" ? 1 : 0)...TimeSpan.days(365), wp + key + "[\(i)]")
            }
        }
        if w.maxSessions.count != 5 {
            v.fail(wp + "max_sessions", "expected 5 integers (active, working_set, frequent, rare, restricted), got \(w.maxSessions.count)")
        }
        for (i, n) in w.maxSessions.enumerated() { v.check(n, in: 1...1000, wp + "max_sessions[\(i)]") }
        v.check(w.allowedTime, in: TimeSpan.seconds(1)...TimeSpan.hours(24), wp + "allowed_time")
        v.check(w.inQuotaBuffer, in: TimeSpan.seconds(0)...w.allowedTime, wp + "in_quota_buffer")
        for (value, key) in [(w.dozeAfter, "doze_after"), (w.idleFirst, "idle_first"), (w.idleMax, "idle_max"),
                             (w.maintenanceFirst, "maintenance_first"), (w.maintenanceMax, "maintenance_max")] {
            v.check(value, in: TimeSpan.minutes(1)...TimeSpan.days(7), wp + key)
        }
        v.check(w.idleFactor, in: 1...10, wp + "idle_factor")
        v.check(w.maintenanceFactor, in: 1...10, wp + "maintenance_factor")

        let e = energy
        for (value, key) in [(e.ltePromotion, "lte_promotion"), (e.lteTail, "lte_tail"), (e.wifiTail, "wifi_tail")] {
            v.check(value, in: TimeSpan.seconds(0)...TimeSpan.minutes(10), "energy.\(key)")
        }
        for (value, key) in [(e.ltePromotionW, "lte_promotion_w"), (e.lteActiveW, "lte_active_w"), (e.lteTailW, "lte_tail_w"),
                             (e.wifiActiveW, "wifi_active_w"), (e.wifiTailW, "wifi_tail_w"), (e.nr5gPowerFactor, "nr5g_power_factor")] {
            v.check(value, in: 0...100, "energy.\(key)")
        }

        v.check(push.perHour, in: 0...PushChannel.maxPerHour, "push.per_hour")
        v.check(push.dropProbability, in: 0...1, "push.drop_probability")
        v.check(push.delayMedian, in: TimeSpan.seconds(0.000_001)...TimeSpan.hours(24), "push.delay_median")
        v.check(push.delaySigma, in: 0...5, "push.delay_sigma")

        let f = policies
        v.check(f.fixed.interval, in: TimeSpan.seconds(1)...TimeSpan.minutes((60 * 24 * 7)), "policies.fixed.interval")
        let ad = f.adaptive
        v.check(ad.minInterval, in: TimeSpan.minutes(1)...TimeSpan.minutes((60 * 24 * 7)), "policies.adaptive.min_interval")
        v.check(ad.maxInterval, in: TimeSpan.minutes(ad.minInterval.minutes)...TimeSpan.minutes((60 * 24 * 7)), "policies.adaptive.max_interval")
        v.check(ad.initialInterval, in: TimeSpan.minutes(1)...TimeSpan.minutes((60 * 24 * 7)), "policies.adaptive.initial_interval")
        v.check(ad.increase, in: TimeSpan.minutes(0)...TimeSpan.minutes((60 * 24)), "policies.adaptive.increase")
        v.check(ad.decrease, in: 0.01...1, "policies.adaptive.decrease")
        v.check(ad.failureBackoff, in: 1...100, "policies.adaptive.failure_backoff")
        v.check(ad.killBackoff, in: 1...100, "policies.adaptive.kill_backoff")
        v.check(ad.habitHalfLife, in: TimeSpan.hours(1)...TimeSpan.hours((24 * 365)), "policies.adaptive.habit_half_life")
        v.check(ad.habitLift, in: 0...96, "policies.adaptive.habit_lift")
        v.check(ad.lead, in: TimeSpan.minutes(0)...TimeSpan.minutes((60 * 24)), "policies.adaptive.lead")
        v.checkLearning(f.usage.halfLife, lead: f.usage.lead, minGap: nil, failureBackoff: f.usage.failureBackoff,
                        killBackoff: f.usage.killBackoff, "policies.usage")
        v.check(f.usage.wakesScale, in: 0...100, "policies.usage.wakes_scale")
        v.check(f.usage.wakesCap, in: 0...24, "policies.usage.wakes_cap")
        v.check(f.usage.minProbability, in: 0...1, "policies.usage.min_probability")
        let h = f.histogram
        v.checkLearning(h.halfLife, lead: h.lead, minGap: h.minGap, failureBackoff: h.failureBackoff,
                        killBackoff: h.killBackoff, "policies.histogram")
        v.checkRoutineChange(h.routineChange, "policies.histogram")
        v.check(h.window, in: TimeSpan.hours(1)...TimeSpan.hours(24), "policies.histogram.window")
        v.check(h.threshold, in: 0.001...0.999, "policies.histogram.threshold")
        let nh = f.nhpp
        v.checkLearning(nh.halfLife, lead: nh.lead, minGap: nh.minGap, failureBackoff: nh.failureBackoff,
                        killBackoff: nh.killBackoff, "policies.nhpp")
        v.checkRoutineChange(nh.routineChange, "policies.nhpp")
        v.check(nh.harmonics, in: 1...6, "policies.nhpp.harmonics")
        v.check(nh.ridge, in: 0.000_001...1_000_000, "policies.nhpp.ridge")
        v.check(nh.refitDays, in: 1...28, "policies.nhpp.refit_days")
        v.check(nh.itemInterval, in: TimeSpan.minutes(1)...TimeSpan.days(7), "policies.nhpp.item_interval")
        v.check(nh.minSavingPerJoule, in: 0...1_000_000, "policies.nhpp.min_saving_per_joule")
        let b = f.bayes
        v.checkLearning(b.halfLife, lead: b.lead, minGap: b.minGap, failureBackoff: b.failureBackoff,
                        killBackoff: b.killBackoff, "policies.bayes")
        v.checkRoutineChange(b.routineChange, "policies.bayes")
        v.check(b.priorShape, in: 0.001...100, "policies.bayes.prior_shape")
        v.check(b.priorWeeks, in: 0.001...1000, "policies.bayes.prior_weeks")
        v.check(b.poolWeeks, in: 0...1000, "policies.bayes.pool_weeks")
        v.check(b.threshold, in: 0.001...0.999, "policies.bayes.threshold")
        v.check(b.lookAhead, in: TimeSpan.hours(1)...TimeSpan.days(7), "policies.bayes.look_ahead")
        let k = f.kde
        v.checkLearning(k.halfLife, lead: k.lead, minGap: k.minGap, failureBackoff: k.failureBackoff,
                        killBackoff: k.killBackoff, "policies.kde")
        v.checkRoutineChange(k.routineChange, "policies.kde")
        v.check(k.bandwidth, in: TimeSpan.minutes(10)...TimeSpan.hours(1), "policies.kde.bandwidth")
        v.check(k.itemInterval, in: TimeSpan.minutes(1)...TimeSpan.days(7), "policies.kde.item_interval")
        v.check(k.minFresh, in: 0...1, "policies.kde.min_fresh")
        let l = f.logistic
        v.checkLearning(l.halfLife, lead: l.lead, minGap: l.minGap, failureBackoff: l.failureBackoff,
                        killBackoff: l.killBackoff, "policies.logistic")
        v.checkRoutineChange(l.routineChange, "policies.logistic")
        v.check(l.harmonics, in: 1...6, "policies.logistic.harmonics")
        if ![0.5, 1, 1.5, 2, 3, 4, 6].contains(where: { TimeSpan.hours($0) == l.window }) {
            v.fail("policies.logistic.window", "\(l.window) is not a window length that tiles a day: expected one of 30m, 1h, 90m, 2h, 3h, 4h, 6h")
        }
        if ![32, 64, 96, 128].contains(l.reservoir) {
            v.fail("policies.logistic.reservoir", "\(l.reservoir) is out of range: expected 32, 64, 96 or 128 (half the rows in 16 strata)")
        }
        v.check(l.ridge, in: 0.000_001...1_000_000, "policies.logistic.ridge")
        v.check(l.refitDays, in: 1...28, "policies.logistic.refit_days")
        v.check(l.threshold, in: 0.001...0.999, "policies.logistic.threshold")
        v.check(f.oracle.lead, in: TimeSpan.minutes(0)...TimeSpan.minutes((60 * 24)), "policies.oracle.lead")
        v.check(f.push.perHour, in: 1...PushChannel.maxPerHour, "policies.push.per_hour")
        v.check(f.push.fallbackInterval, in: TimeSpan.seconds(0)...TimeSpan.days(30), "policies.push.fallback_interval")
        return v.problems
    }
}

/// Collects problems; one helper per kind of rule.
struct ScenarioValidator {
    var problems: [ScenarioProblem] = []

    mutating func fail(_ path: String, _ message: String) {
        problems.append(ScenarioProblem(path: path, message: message))
    }

    mutating func check(_ value: Double, in range: ClosedRange<Double>, _ path: String, note: String = "") {
        if !range.contains(value) {
            fail(path, "\(format(value)) is out of range: expected a number from \(format(range.lowerBound)) to \(format(range.upperBound))\(note)")
        }
    }

    /// Durations are reported in the scenario's own notation ("15m", "1d").
    mutating func check(_ value: TimeSpan, in range: ClosedRange<TimeSpan>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(value) is out of range: expected a duration from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    mutating func check(_ value: Double, in range: PartialRangeFrom<Double>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(format(value)) is out of range: expected a number of at least \(format(range.lowerBound))")
        }
    }

    mutating func check(_ value: Int, in range: ClosedRange<Int>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(value) is out of range: expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// The parameters every learning policy has (Scenario.swift, before `UsageParameters`).
    mutating func checkLearning(_ halfLife: TimeSpan, lead: TimeSpan, minGap: TimeSpan?, failureBackoff: TimeSpan,
                                killBackoff: TimeSpan, _ path: String) {
        check(halfLife, in: TimeSpan.hours(1)...TimeSpan.days(365), path + ".half_life")
        check(lead, in: TimeSpan.minutes(0)...TimeSpan.hours(6), path + ".lead")
        if let minGap { check(minGap, in: TimeSpan.minutes(0)...TimeSpan.days(7), path + ".min_gap") }
        check(failureBackoff, in: TimeSpan.minutes(0)...TimeSpan.days(1), path + ".failure_backoff")
        check(killBackoff, in: TimeSpan.minutes(0)...TimeSpan.days(1), path + ".kill_backoff")
    }

    /// The routine-change rule of `histogram`, `nhpp`, `bayes`, `kde` and `logistic`.
    mutating func checkRoutineChange(_ r: RoutineChangeParameters, _ path: String) {
        check(r.keep, in: 0...1, path + ".routine_change.keep")
        check(r.rareHourShare, in: 0...1, path + ".routine_change.rare_hour_share")
        check(r.surprisingShare, in: 0...1, path + ".routine_change.surprising_share")
        check(r.minOpens, in: 1...1000, path + ".routine_change.min_opens")
        check(r.minHistory, in: 0...1_000_000, path + ".routine_change.min_history")
        check(r.minDays, in: 1...30, path + ".routine_change.min_days")
    }

    /// `count` relative weights: none negative, a positive sum.
    mutating func checkWeights(_ weights: [Double], count: Int, _ path: String) {
        guard weights.count == count else { return fail(path, "expected \(count) weights, got \(weights.count)") }
        for (i, w) in weights.enumerated() { check(w, in: 0..., "\(path)[\(i)]") }
        if weights.allSatisfy({ $0 >= 0 }) && !(weights.reduce(0, +) > 0) {
            fail(path, "expected weights with a positive sum")
        }
    }

    /// A number as a user wrote it: `2` rather than `2.0`.
    func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
