import Foundation

// MARK: - Silent push and the platform's own wakes (MODEL.md §6; ios-fetch, android-workmanager)

extension DeviceSimulation {
    // MARK: Silent push

    /// The server hears of the next content change when it is published.
    mutating func scheduleNextPublication() {
        let times = cursor.feed.times
        guard nextPublication < times.count else { return }
        let at = times[nextPublication]
        // Items published at one instant are one change.
        while nextPublication < times.count && times[nextPublication] == at { nextPublication += 1 }
        schedule(.publish, at: at)
    }

    /// Carries out a server's push decision: one send pending at a time, the earliest.
    mutating func apply(_ decision: PushDecision, at t: SimTime) {
        guard case .send(let when) = decision else { return }
        let at = max(when, t)
        if pushSendPending && pushSendTime <= at { return }
        pushSendPending = true
        pushSendTime = at
        schedule(.pushSend, at: at)
    }

    /// The server sends a push: lost on the way, or it arrives after a delay.
    mutating func sendPush(at t: SimTime) {
        pushSendPending = false
        if let arrival = push.send(at: t) {
            schedule(.pushArrive, at: arrival)
        } else {
            if counting(t) {
                rec.tally.increment(.pushSent)
                rec.tally.increment(.pushLost)
                rec.record(.pushLost, 1, at: t)
            }
            if tracing { log("push_lost", "push", at: t) }
        }
    }

    /// A push arrives: the platform's gates and push budget decide whether the app runs.
    mutating func pushArrived(at t: SimTime) {
        if hasBattery { battery.advance(to: t) }
        let arrival = push.arrive(at: t, gates: gates(), busy: inFlight)
        if counting(t) {
            rec.tally.increment(.pushSent)
            switch arrival {
            case .delivered:
                rec.tally.increment(.pushRuns)
                rec.record(.pushRuns, 1, at: t)
            case .gated: rec.tally.increment(.pushGated)
            case .throttled: rec.tally.increment(.pushThrottled)
            }
        }
        switch arrival {
        case .delivered: startRun(at: t, viaPush: true)
        case .gated(let reason): if tracing { log("push_gated", reason.label, at: t) }
        case .throttled: if tracing { log("push_throttled", "budget", at: t) }
        }
    }

    // MARK: Platform-initiated wakes and device state (ios-fetch, android-workmanager)

    /// Tells the platform the screen and charging state (platforms that ignore it inline
    /// the default no-op).
    @inline(__always)
    mutating func deviceChanged(at t: SimTime) {
        platform.deviceChanged(screenOn: screenCount > 0, charging: chargeCount > 0, at: t)
        // A kept request whose reason the change lifted (Doze ended) is tried now.
        if keptPending && requestPending && requestTime > t && platform.deferralLifted(keptReason, at: t) {
            if tracing { log("requested", "system", Clock.seconds(t), at: t) }
            makePending(at: t)
        }
    }

    /// Asks a platform that initiates wakes for its next one, after anything that may
    /// change it (a run's end, an open or a session's end, a state change, midnight). None
    /// while a run is in flight or the app is in the foreground: the run's or the
    /// session's end plans again.
    @inline(__always)
    mutating func planSystemWake(at t: SimTime) {
        guard Platform.initiatesWakes, !inFlight, !foreground else { return }
        let next = platform.systemWake(after: t).map { max($0, t) } ?? Clock.never
        guard next != systemWakeTime else { return }
        systemWakeTime = next
        systemWakeGeneration &+= 1
        if next != Clock.never { schedule(.systemWake, at: next, payload: systemWakeGeneration) }
    }

    /// The platform's own wake falls due: counted as a request, admitted or denied like one
    /// (the policy hears of a denial as of any, and its answer is dropped). After a state
    /// gate the next wake waits for the next open, session end, state change or midnight.
    mutating func systemWake(at t: SimTime) {
        systemWakeTime = Clock.never
        if counting(t) { rec.tally.increment(.requested) }
        if tracing {
            log("requested", "system", Clock.seconds(t), at: t)
        }
        if inFlight { return deny(.busy, retryAt: nil, at: t) }
        if hasBattery { battery.advance(to: t) }
        switch platform.admit(at: t, gates: gates()) {
        case .run: startRun(at: t)
        case .deny(let reason, let retryAt):
            deny(reason, retryAt: retryAt, at: t)
            if retryAt != nil { planSystemWake(at: t) }
        }
    }
}
