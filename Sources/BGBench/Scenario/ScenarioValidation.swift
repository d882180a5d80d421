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
        // Each content kind's parameters, by their own declarations.
        content.sync.check(into: &v, at: "content.sync")
        content.catalog.check(into: &v, at: "content.catalog")
        content.messages.check(into: &v, at: "content.messages")
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
        a.processing.check(into: &v, at: "app.processing")
        if PlatformRegistry.named(platform.name) == nil {
            v.fail("platform.name", "unknown platform '\(platform.name)': expected one of \(PlatformRegistry.all.map { $0.name }.joined(separator: ", "))")
        }
        // Every platform's parameters, by their own declarations.
        for (key, _) in PlatformModel.entries {
            platform.parameters(key: key)?.check(into: &v, at: "platform." + key)
        }

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

        // Every registered policy's parameters, by their own declarations.
        for (name, _) in PolicyParameters.entries {
            policies.parameters(named: name)?.check(into: &v, at: "policies." + name)
        }
        return v.problems
    }
}

typealias ScenarioValidator = ParameterChecker
