// The declared parameters of the scenario's core sections (`population`, `user`, `device`,
// `network`, `content`'s shared fields, `app`, `energy`, `push`): for each field its JSON
// name, unit, range and a one-line doc with the default's source and derivation, the one
// place each parameter is documented (Scenario.swift holds the stored properties and their
// defaults). The components' own parameters are in their files (each policy, platform,
// content kind and the processing task).

extension Archetype {
    public static var fields: [ParameterField<Self>] {
        [
            .number(\.weight, "weight", "share", atLeast: 0, "share of users, normalised over archetypes; MODEL.md §3"),
            .number(
                \.medianOpensPerDay, "median_opens_per_day", "opens/day", in: 0...10_000,
                "median rate, reopens included; a user's rate is lognormal around it; MODEL.md §3"),
            .weights(
                \.weekdayWeights, "weekday_weights", count: 24,
                "relative opens by hour of day on weekdays; MODEL.md §3, §10 rule 3"),
            .duration(
                \.weekendShift, "weekend_shift", in: .hours(-24)...(.hours(24)),
                "the weekend (Saturday, Sunday) curve and sleep window run this much later; MODEL.md §3: 1.5 h"),
            .number(
                \.weekendLevel, "weekend_level", "factor", in: 0...100,
                "weekend opens as a fraction of the weekday level; MODEL.md §3: 0.9"),
        ]
    }
}

extension UTCOffsetShare {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(\.offset, "offset", in: .hours(-14)...(.hours(14)), "device-local time = UTC + offset"),
            .number(\.share, "share", "share", in: 0...1, "share of devices at that offset (shares are normalised)"),
        ]
    }
}

extension Routine.Entry {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(\.at, "at", in: .hours(0)...(.hours(24)), "time of day of the open"),
            .duration(
                \.jitterSd, "jitter_sd", in: .hours(0)...(.hours(6)), "normal jitter around `at`; MODEL.md §3: 10 min"),
            .number(\.probability, "probability", "probability", in: 0...1, "chance the open happens on a given day"),
        ]
    }
}

extension Routine {
    public static var fields: [ParameterField<Self>] {
        [
            .list(
                \.opens, "opens", maxCount: 16,
                "the routine's daily opens (issue 3's learning-test routine: 07:30, 12:30, 21:00, ± 10 min)")
        ]
    }
}

extension Population {
    public static var fields: [ParameterField<Self>] {
        [
            .choice(
                \.model, "model",
                "`archetypes` draws each user from the archetype mix; `routine` gives every user the routine below (for teaching and tests); MODEL.md §3"
            ),
            .map(
                \.archetypes, "archetypes",
                "the archetype mix (at least one entry with `model: archetypes`, weights with a positive sum); see the merge rules; MODEL.md §3: heavy 0.15, daily 0.45, occasional 0.25, rare 0.15 of users, medians 20, 6, 1 and 1/7 opens a day"
            ),
            .number(
                \.rateSigma, "rate_sigma", "log sd", in: 0...5,
                "sd of the log of a user's rate around the archetype median; MODEL.md §3: 0.8"),
            .duration(
                \.chronotypeSd, "chronotype_sd", in: .hours(0)...(.hours(12)),
                "each user's curve is shifted by a normal offset with this sd; MODEL.md §3: 1 h"),
            .group(\.routine, "routine", "the routine of `model: routine`"),
            ParameterField(
                name: "drift_day", unit: "day (integer)", range: "≥ 0",
                doc: "from this day on, the user's curve and routine move by `drift_shift`; 0 means never; MODEL.md §3"
            ) { p, c, path in
                if p.driftDay < 0 { c.fail(path, "\(p.driftDay) is out of range: expected 0 (never) or a day number") }
            },
            .duration(
                \.driftShift, "drift_shift", in: .hours(-24)...(.hours(24)),
                "how much later (negative: earlier) after the drift; MODEL.md §3"),
            .number(
                \.barOffShare, "bar_off_share", "share", in: 0...1,
                "users with Background App Refresh off (gate `bar_off`); MODEL.md §6.3: 15 %, assumption"),
            .number(
                \.legacyIosShare, "legacy_ios_share", "share", in: 0...1,
                "devices on iOS 12 or lower, which run `ios-fetch` inside an `ios-bgtask` fleet (0 unless `platform.name` is `ios-bgtask`; set `platform.ios_fetch.minimum_interval` too, or they never fetch); MODEL.md §4, §6.3 (0 in a 2026 fleet)"
            ),
            .number(
                \.lowPowerShare, "low_power_share", "share", in: 0...1,
                "users who keep Low Power Mode on all the time (issue 12 point 9; gate `low_power` whatever the level; it never turns off at `device.low_power_off_level`); needs `device.battery_enabled`; default 0: no public figure for the share of iPhone users who leave it on, and MODEL.md §6.3 models Low Power Mode only as turned on at 20 % (assumption; set it to study that subgroup)"
            ),
            .list(
                \.utcOffsets, "utc_offsets",
                "device time zones as shares of the fleet (1 or more, a positive total share); only the fleet's server load (server.csv) depends on them (MODEL.md §2); default everyone at UTC+0 (assumption)"
            ),
        ]
    }

    public func validate(into c: inout ParameterChecker, at path: String) {
        if model == .archetypes && archetypes.isEmpty {
            c.fail(path + ".archetypes", "expected at least one archetype")
        }
        if model == .archetypes && !archetypes.isEmpty && !(archetypes.values.reduce(0) { $0 + $1.weight } > 0) {
            c.fail(path + ".archetypes", "expected archetype weights with a positive sum")
        }
        if utcOffsets.isEmpty || !(utcOffsets.reduce(0) { $0 + $1.share } > 0) {
            c.fail(path + ".utc_offsets", "expected at least one offset with a positive share")
        }
    }
}

extension UserBehaviour {
    public static var fields: [ParameterField<Self>] {
        [
            .flag(
                \.sleepEnabled, "sleep_enabled",
                "the sleep window: no opens inside it except night checks; false: no sleep window and no night checks; MODEL.md §3"
            ),
            .duration(
                \.bedtimeMean, "bedtime_mean", in: .hours(0)...(.hours(48)),
                "mean bedtime after midnight of the day; MODEL.md §3"),
            .duration(
                \.bedtimeSd, "bedtime_sd", in: .hours(0)...(.hours(12)),
                "sd of the user's bedtime (normal, drawn once per user); MODEL.md §3"),
            .duration(
                \.sleepMin, "sleep_min", in: .hours(0)...(.hours(20)),
                "shortest sleep; the user's sleep length is uniform in [min, max]; MODEL.md §3"),
            .duration(
                \.sleepMax, "sleep_max", in: { .hours($0.sleepMin.hours)...(.hours(20)) }, shown: "`sleep_min` to 20h",
                "longest sleep"),
            .number(
                \.nightChecksPerNight, "night_checks_per_night", "opens/night", in: 0...100,
                "night checks: a user with daily rate r opens min(n, r/10) times a night inside the sleep window (reopens included), part of r: the waking hours carry the rest; the window's hourly weights are otherwise zero; MODEL.md §3: 0.1"
            ),
            .number(
                \.pReopen, "p_reopen", "probability", in: 0...0.95,
                "chance an open is followed by another within minutes (opens cluster); the daily rate, reopens included, is kept; MODEL.md §3: 0.3"
            ),
            .duration(
                \.reopenGapMean, "reopen_gap_mean", in: .seconds(0)...(.seconds(86_400)),
                "mean of the exponential gap from the end of the session to the reopen; MODEL.md §3: 10 min"),
            .duration(
                \.sessionBodyMean, "session_body_mean", in: .seconds(0)...(.seconds(86_400)),
                "mean b of the exponential body of session lengths (the tail is Pareto; MODEL.md §3's targets, mean about 70 s, half under 30 s, 90 % under 4 min, fix b, q and α analytically; default 37 s: the median, 30 s, comes from the body alone: (1 − q)(1 − e^(−30/b)) = 1/2); MODEL.md §3, Böhmer 2011, FALCON 2012"
            ),
            .number(
                \.sessionTailShare, "session_tail_share", "share", in: 0...1,
                "share q of sessions drawn from the Pareto tail instead (default 0.098: with the tail starting at 4 min, q + (1 − q)·e^(−240/b) = 10 % over 4 min); MODEL.md §3, Böhmer 2011, FALCON 2012"
            ),
            .duration(
                \.sessionTailMin, "session_tail_min", in: .seconds(0.001)...(.seconds(86_400)),
                "Pareto scale x_m, the shortest tail session (default 4 min: the tail is the 10 % over 4 min); MODEL.md §3"
            ),
            .number(
                \.sessionTailAlpha, "session_tail_alpha", "shape", in: 0.1...100,
                "Pareto shape α (default 2.8: sets the mean (1 − q)·b + q·x_m·α/(α − 1) to 70 s; rounded as b 37 s, q 0.098, α 2.8, the defaults give mean 69.9 s, median 29.9 s, 90.06 % under 4 min); MODEL.md §3, Böhmer 2011, FALCON 2012"
            ),
            .duration(
                \.sessionMax, "session_max", in: .seconds(0)...(.seconds(86_400)),
                "cap on a session (the 2 h default takes 0.01 s off the mean)"),
            .number(
                \.forceQuitProbability, "force_quit_probability", "probability", in: 0...1,
                "per session, the user swipes the app away (gate `force_quit` until the next open); MODEL.md §6.3: 2 %, assumption"
            ),
        ]
    }
}

extension DeviceModel {
    public static var fields: [ParameterField<Self>] {
        [
            .flag(
                \.batteryEnabled, "battery_enabled",
                "false: no battery, charging, Low Power Mode or other phone use (R1); gates `low_power` and `low_battery` never fail"
            ),
            .number(
                \.batteryWh, "battery_wh", "Wh", in: 0.1...1000,
                "capacity, about 4,000 mAh at 3.85 V; MODEL.md §4, assumption; also the base of `battery_pct_per_day`"),
            .number(\.initialLevel, "initial_level", "fraction", in: 0...1, "level at t = 0; assumption"),
            .number(\.idleW, "idle_w", "W", in: 0...100, "drain with the screen off; MODEL.md §6.3, assumption"),
            .number(
                \.screenOnW, "screen_on_w", "W", in: 0...100,
                "drain with the screen on, in place of idle; MODEL.md §6.3, assumption"),
            .number(
                \.chargeW, "charge_w", "W", in: 0...1000,
                "while charging, the level rises at this power (drain is not subtracted); MODEL.md §6.3, assumption"),
            .number(
                \.overnightChargeProbability, "overnight_charge_probability", "probability", in: 0...1,
                "per night: plugged in near bedtime, unplugged at wake-up; MODEL.md §4, probability an assumption"),
            .duration(
                \.plugJitterSd, "plug_jitter_sd", in: .hours(0)...(.hours(12)),
                "plug-in time is bedtime plus a normal jitter with this sd (at the latest 1 min before wake-up)"),
            .number(
                \.topUpProbability, "top_up_probability", "probability", in: 0...1,
                "per day, a daytime top-up starting uniformly between 09:00 and 21:00; assumption"),
            .duration(
                \.topUpMean, "top_up_mean", in: .hours(0)...(.hours(24)), "mean of its exponential length; assumption"),
            .number(
                \.lowBatteryLevel, "low_battery_level", "fraction", in: 0...1,
                "below it and not charging, discretionary work is off (gate `low_battery`); also where Low Power Mode may turn on; WWDC20 10063: 20 %"
            ),
            .number(
                \.lowPowerProbability, "low_power_probability", "probability", in: 0...1,
                "chance that Low Power Mode turns on when the level crosses `low_battery_level` downwards while not charging; MODEL.md §6.3"
            ),
            .number(
                \.lowPowerOffLevel, "low_power_off_level", "fraction", in: 0...1,
                "Low Power Mode turns off when charging reaches it; MODEL.md §6.3, iOS behaviour"),
            .number(
                \.screenSessionsPerDay, "screen_sessions_per_day", "sessions/day", in: 0...10_000,
                "phone use beyond the app, with the user's diurnal shape and sleep window; MODEL.md §4: about 50 screen sessions and 1–5 h of screen time a day (Falaki 2010, Böhmer 2011, Andrews 2015)"
            ),
            .duration(
                \.screenSessionMedian, "screen_session_median", in: .seconds(0)...(.seconds(86_400)),
                "median of the lognormal session length"),
            .number(
                \.screenSessionSigma, "screen_session_sigma", "log sd", in: 0...5,
                "sigma of that lognormal (defaults: mean 185 s, 2.6 h of screen time a day)"),
        ]
    }
}

extension NetworkModel {
    public static var fields: [ParameterField<Self>] {
        [
            .number(
                \.homeWifiShare, "home_wifi_share", "share", in: 0...1,
                "users with Wi-Fi at home in the window below, every day; MODEL.md §6.3: 90 %, assumption; R1 uses the same window, 19:00–08:00"
            ),
            .duration(\.homeFrom, "home_from", in: .hours(0)...(.hours(24)), "start of the home window (time of day)"),
            .duration(
                \.homeUntil, "home_until", in: .hours(0)...(.hours(24)),
                "end of the home window; a window may wrap past midnight"),
            .number(
                \.workWifiShare, "work_wifi_share", "share", in: 0...1,
                "users with Wi-Fi at work, weekdays only; MODEL.md §6.3: 50 %"),
            .duration(\.workFrom, "work_from", in: .hours(0)...(.hours(24)), "start of the work window"),
            .duration(\.workUntil, "work_until", in: .hours(0)...(.hours(24)), "end of the work window"),
            .number(
                \.nr5gShare, "nr5g_share", "share", in: 0...1,
                "users whose cellular network is 5G rather than LTE; assumption"),
            .number(
                \.offlineSpellsPerDay, "offline_spells_per_day", "spells/day", in: 0...1000,
                "Poisson rate of offline spells; MODEL.md §6.3: 2 a day"),
            .duration(
                \.offlineMean, "offline_mean", in: .hours(0)...(.hours(24)),
                "mean of their exponential length; MODEL.md §6.3: 10 min"),
            .duration(
                \.latencyMedianWifi, "latency_median_wifi", in: .seconds(0)...(.seconds(60)),
                "median request latency on Wi-Fi; MODEL.md §6.3, assumption"),
            .duration(\.latencyMedianLte, "latency_median_lte", in: .seconds(0)...(.seconds(60)), "on LTE"),
            .duration(\.latencyMedianNr5g, "latency_median_nr5g", in: .seconds(0)...(.seconds(60)), "on 5G"),
            .number(\.latencySigma, "latency_sigma", "log sd", in: 0...5, "sigma of the lognormal latency"),
            .number(
                \.bandwidthWifiMbps, "bandwidth_wifi_mbps", "Mbit/s", in: 0.001...100_000,
                "downlink bandwidth on Wi-Fi; MODEL.md §6.3"),
            .number(
                \.bandwidthLteMbps, "bandwidth_lte_mbps", "Mbit/s", in: 0.001...100_000,
                "on LTE (Huang et al. 2012 median: 13)"),
            .number(\.bandwidthNr5gMbps, "bandwidth_nr5g_mbps", "Mbit/s", in: 0.001...100_000, "on 5G"),
        ]
    }
}

extension EnergyModel {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.ltePromotion, "lte_promotion", in: .seconds(0)...(.minutes(10)),
                "LTE promotion time (Huang et al., MobiSys 2012)"),
            .number(\.ltePromotionW, "lte_promotion_w", "W", in: 0...100, "power during promotion (same paper)"),
            .number(\.lteActiveW, "lte_active_w", "W", in: 0...100, "power while connected (same paper)"),
            .duration(\.lteTail, "lte_tail", in: .seconds(0)...(.minutes(10)), "tail after the last byte (same paper)"),
            .number(\.lteTailW, "lte_tail_w", "W", in: 0...100, "power during the tail (same paper)"),
            .number(
                \.wifiActiveW, "wifi_active_w", "W", in: 0...100,
                "Wi-Fi power while active, far lower than LTE's (same paper; R1)"),
            .duration(
                \.wifiTail, "wifi_tail", in: .seconds(0)...(.minutes(10)), "Wi-Fi tail, a short one (same paper; R1)"),
            .number(\.wifiTailW, "wifi_tail_w", "W", in: 0...100, "power during the Wi-Fi tail (same paper; R1)"),
            .number(
                \.nr5gPowerFactor, "nr5g_power_factor", "factor", in: 0...100,
                "5G NSA energy as a multiple of LTE's (Xu et al., SIGCOMM 2020: 2–3×)"),
        ]
    }
}

extension PushModel {
    public static var fields: [ParameterField<Self>] {
        [
            .integer(
                \.perHour, "per_hour", "integer", in: 0...PushChannel.maxPerHour,
                "pushes the platform delivers per rolling hour; more are not delivered (Apple developer documentation, \"Pushing background updates to your App\": \"don't try to send more than two or three per hour\")"
            ),
            .number(
                \.dropProbability, "drop_probability", "probability", in: 0...1,
                "a push lost on the way (push service, network); assumption: delivery is not guaranteed, no public figure"
            ),
            .duration(
                \.delayMedian, "delay_median", in: .seconds(0.000_001)...(.hours(24)),
                "median delay from the server's send to the device (lognormal; assumption: seconds)"),
            .number(
                \.delaySigma, "delay_sigma", "number", in: 0...5,
                "log-scale standard deviation of the delay (assumption)"),
        ]
    }
}

extension ContentModel {
    public static var fields: [ParameterField<Self>] {
        [
            .choice(
                \.kind, "kind",
                "`news`: one feed shared by all devices, generated from the run seed; `sync`: each device produces its own items and uploads them, read by a daily server job; `catalog`: the shared feed's items bring images; `messages`: each device's own bursty conversations ([content.md](content.md))"
            ),
            .number(
                \.itemsPerDay, "items_per_day", "items/day", in: 0...100_000,
                "rate of the non-homogeneous Poisson feed; MODEL.md §5: 48"),
            .weights(
                \.hourlyWeights, "hourly_weights", count: 24,
                "relative items by hour of day; MODEL.md §10 rule 4 (R1's weights)"),
            .number(
                \.itemSizeMedianKilobytes, "item_size_median_kilobytes", "kB (1000 B)", in: 0...1_000_000,
                "median of the lognormal item size (mean 5.1 kB; MODEL.md §6.3's 5 kB per item, assumption)"),
            .number(\.itemSizeSigma, "item_size_sigma", "log sd", in: 0...5, "sigma of that lognormal; assumption"),
            .group(
                \.sync, "sync",
                "the `sync` kind's parameters: the server job and its target (the item fields above then describe the data each device produces, not a shared feed)"
            ),
            .group(
                \.catalog, "catalog", "the `catalog` kind's parameters: images, Wi-Fi-only and background transfers"),
            .group(
                \.messages, "messages",
                "the `messages` kind's parameters: how a device's messages cluster into conversations"),
        ]
    }
}

extension AppModel {
    public static var fields: [ParameterField<Self>] {
        [
            .choice(
                \.task, "task",
                "`requests`: MODEL.md §6.4 rule 6 (launch, then 1–2 requests); `lognormal`: R1's one lognormal duration and one failure probability (MODEL.md §10 rule 6)"
            ),
            .duration(
                \.launch, "launch", in: .seconds(0)...(.seconds(600)),
                "launch time of a run; MODEL.md §6.4 rule 6: 0.3 s"),
            .number(
                \.launchJ, "launch_j", "J", in: 0...1000,
                "launch energy of every background run; MODEL.md §6.4 rule 6: 0.5 J"),
            .number(
                \.secondRequestProbability, "second_request_probability", "probability", in: 0...1,
                "a run makes a second request with this probability; MODEL.md §6: 1–2"),
            .number(
                \.failureProbability, "failure_probability", "probability", in: 0...1,
                "per request, it fails (run `failed`); MODEL.md §6.3, §6.4 rule 9: 0.01, assumption"),
            .number(
                \.hangProbability, "hang_probability", "probability", in: { 0...(1 - min(1, $0.failureProbability)) },
                shown: "0 to 1 − `failure_probability`",
                note: " (failure and hang are exclusive: their sum is at most 1)",
                "else, it hangs (the run reaches the limit); MODEL.md §6.3, §6.4 rule 9: 0.003, assumption"),
            .number(
                \.payloadFixedKilobytes, "payload_fixed_kilobytes", "kB", in: 0...1_000_000,
                "fixed part of every request's payload; MODEL.md §6.3: 20 kB, assumption"),
            .choice(
                \.sync, "sync",
                "the first request also carries the missed items' bytes (`delta`) or `full_set_items` average items (`full`); MODEL.md §6.3, assumption"
            ),
            ParameterField(
                name: "full_set_items", unit: "items (integer)", range: "≥ 0",
                doc: "size of a full refresh; MODEL.md §6.3, assumption"
            ) { a, c, path in
                if a.fullSetItems < 0 { c.fail(path, "\(a.fullSetItems) is out of range: expected at least 0") }
            },
            .choice(
                \.status, "status",
                "`always_new_data` claims new data even when nothing was new (penalised on `ios-bgtask`); MODEL.md §6"),
            .flag(
                \.resubmits, "resubmits",
                "false: the app forgets to resubmit, so it gets no more runs until the next open (gate `not_submitted`); MODEL.md §6"
            ),
            .flag(
                \.handlesExpiration, "handles_expiration",
                "at the limit, a run is `expired` (true) or `killed` (false); MODEL.md §6"),
            .duration(
                \.lognormalMedian, "lognormal_median", in: .seconds(0.000_001)...(.seconds(3600)),
                "with `task: lognormal`: median run duration; R1 (MODEL.md §10 rule 6): 0.8 s"),
            .number(\.lognormalSigma, "lognormal_sigma", "log sd", in: 0...5, "its sigma; R1: 1.0"),
            .number(
                \.lognormalFailureProbability, "lognormal_failure_probability", "probability", in: 0...1,
                "a run that does not reach the limit fails with this probability; R1: 0.02"),
            .group(
                \.processing, "processing",
                "an optional processing task beside the refresh (MODEL.md §6: BGProcessingTask)"),
        ]
    }
}
