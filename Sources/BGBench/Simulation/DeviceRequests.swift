import Foundation

// MARK: - The request life cycle: a policy's decisions, admission, denial, a run's start and end (MODEL.md §10)

extension DeviceSimulation {
    /// A pending request falls due: the platform admits or denies it (rule 2).
    @inline(__always)
    mutating func request(at t: SimTime) {
        if t < decidedUntil && !inFlight && !tracing, let answer = policy.deniedAhead(at: t) {
            decidedDenials(from: t, answer: answer)
            return
        }
        requestPending = false
        keptPending = false
        nextRequest = Clock.never
        if counting(t) { rec.tally.increment(.requested) }
        if inFlight {
            deny(.busy, retryAt: nil, at: t)
            return
        }
        if hasBattery { battery.advance(to: t) }
        switch platform.admit(at: t, gates: gates()) {
        case .deny(let reason, let retryAt?) where Platform.keepsPending(reason):
            keepPending(reason, retryAt: retryAt, at: t)
        case .deny(let reason, let retryAt):
            deny(reason, retryAt: retryAt, at: t)
            decidedUntil = platform.deniesUntil(reason, at: t)
            decidedReason = reason
        case .run: startRun(at: t)
        }
    }

    /// A denial the platform keeps pending (`PlatformRules.keepsPending`): counted under
    /// its reason like any, then the same work is requested again at `retryAt` (a tick
    /// later at the earliest) by the platform, traced as `requested` / `system`; the
    /// policy is not told and its pending decision is this one.
    mutating func keepPending(_ reason: DenialReason, retryAt: SimTime, at t: SimTime) {
        if counting(t) {
            rec.tally.countDenial(reason)
            rec.record(.denied, 1, at: t)
        }
        let when = max(retryAt, t + 1)
        if tracing {
            log("denied", reason.label, Clock.seconds(retryAt), at: t)
            log("requested", "system", Clock.seconds(when), at: t)
        }
        makePending(at: when)
        keptPending = true
        keptReason = reason
    }

    /// Denials the platform has decided ahead, of a policy that answers them by their time
    /// alone (`WakePolicy.deniedAhead`): from the pending request at t, whose answer the
    /// policy gave, each is counted and answered as `request`, `deny` and `apply` would
    /// (MODEL.md §10 rules 1-2), without asking the platform or building a view; the next
    /// one is handled here too while it comes before every queued event, the battery's
    /// next change and the end of the decision. Untraced devices only (a traced one logs
    /// each step).
    mutating func decidedDenials(from first: SimTime, answer firstAnswer: SimTime) {
        var t = first, answer = firstAnswer
        while true {
            if hasBattery { battery.advance(to: t) }
            if counting(t) {
                rec.tally.increment(.requested)
                rec.tally.countDenial(decidedReason)
                rec.record(.denied, 1, at: t)
            }
            // The answer becomes the pending request; a retry at t waits a tick (`deny`).
            let when = max(answer, t + 1)
            makePending(at: when)
            guard when < ctx.horizon, when < decidedUntil, when < lowCrossing,
                !queue.firstPrecedes(time: when, priority: SimEvent.request.priority),
                let next = policy.deniedAhead(at: when)
            else { return }
            t = when
            answer = next
        }
    }

    @inline(never)
    mutating func deny(_ reason: DenialReason, retryAt: SimTime?, at t: SimTime) {
        if counting(t) {
            rec.tally.countDenial(reason)
            rec.record(.denied, 1, at: t)
        }
        if tracing {
            log("denied", reason.label, retryAt.map { Clock.seconds($0) }, at: t)
        }
        guard callbacks.contains(.denied) else { return }
        // A retry at the same instant would be denied again, forever: it waits a tick.
        var decision = policy.denied(reason, retryAt: retryAt, view(at: t))
        if case .request(let when) = decision, when <= t { decision = .request(at: t + 1) }
        apply(decision, at: t)
    }

    /// A run starts at t: at a request the platform admitted, or (`viaPush`) at a
    /// delivered push, which takes no token, starts no spacing and leaves the submitted
    /// task alone (the push handler is not the BGTask's).
    @inline(__always)
    mutating func startRun(at t: SimTime, viaPush: Bool = false) {
        if !viaPush {
            platform.runStarted(at: t)
            if !ctx.scenario.app.resubmits { submitted = false }
        }
        let net = network.at(t)
        let missing = cursor.missing(upTo: t)
        let images = content == .catalog ? planImages(items: missing.count, on: net) : 0
        let run = task.run(
            on: net, newItems: missing.count, newBytes: missing.bytes, itemBytes: averageItemBytes,
            extraBytes: images, limit: platform.runLimit(at: t))
        if hasBattery { battery.spend(run.energy, at: t); noteBattery(at: t) }
        if counting(t) {
            rec.tally.increment(.runs)
            rec.tally.countOutcome(run.status)
            rec.tally[amount: .backgroundEnergy] += run.energy
            rec.record(.runs, 1, at: t)
            rec.record(.backgroundEnergy, run.energy, at: t)
            if run.status == .killed { rec.record(.killed, 1, at: t) }
            rec.serverRequests(run.requests, at: t)
            // The images ride on the first request: fetched if any bytes came.
            rec.received(run.bytes, images: run.bytes > 0 ? images : 0, on: net, at: t)
        }
        if tracing {
            log("started", viaPush ? net.label + " push" : net.label, Double(missing.count), at: t)
        }
        inFlight = true
        inFlightStart = t
        inFlightStatus = run.status
        inFlightContent = missing.count > 0
        schedule(.runEnd, at: t + run.duration)
        if callbacks.contains(.runStarted) { apply(policy.runStarted(view(at: t)), at: t) }
    }

    @inline(__always)
    mutating func runEnded(at t: SimTime) {
        inFlight = false
        let status = inFlightStatus, start = inFlightStart
        if tracing { logRunEnd(status, start: start, at: t) }
        if inFlightStatus == .newData || inFlightStatus == .noData {
            // The update holds everything published up to the run's start (R1 rule 7).
            if inFlightHolds && inFlightStart > cacheTime {
                cacheTime = inFlightStart
                cursor.cache(upTo: inFlightStart)
            }
            if inFlightTransferBytes > 0 { handToTransfer(at: t) }
        }
        let throttles = platform.throttleEvents
        platform.runEnded(at: t, status: inFlightStatus, broughtContent: inFlightContent)
        if counting(t) { rec.tally[.throttleEvents] += platform.throttleEvents - throttles }
        if callbacks.contains(.runEnded) { tellRunEnded(at: t) }
        planSystemWake(at: t)
    }

    // Kept out of `runEnded`, so that it stays small enough to be inlined into the loop.
    @inline(never)
    mutating func logRunEnd(_ status: RunStatus, start: SimTime, at t: SimTime) {
        log(
            status == .expired ? "expired" : status == .killed ? "killed" : "completed",
            status.label, Clock.seconds(t - start), at: t)
    }

    @inline(never)
    mutating func tellRunEnded(at t: SimTime) {
        apply(policy.runEnded(inFlightStatus, view(at: t)), at: t)
    }

    // MARK: Policy

    /// Carries out a policy's decision (rule 1: at most one request pending). On a platform
    /// that chooses its own wakes the app cannot ask for a time: decisions are dropped.
    @inline(__always)
    mutating func apply(_ decision: WakeDecision, at t: SimTime) {
        if Platform.initiatesWakes { return }
        switch decision {
        case .keep: return
        case .cancel:
            keptPending = false
            if requestPending {
                if tracing {
                    log("withdrawn", "policy", at: t)
                }
                requestPending = false
                nextRequest = Clock.never
                if counting(t) { rec.tally.increment(.replaced); rec.tally.increment(.requested) }
            }
        case .request(let when):
            keptPending = false
            if requestPending {
                if tracing {
                    log("replaced", "policy", at: t)
                }
                if counting(t) { rec.tally.increment(.replaced); rec.tally.increment(.requested) }
            }
            if tracing {
                log("requested", "policy", Clock.seconds(max(when, t)), at: t)
            }
            makePending(at: max(when, t))
        }
    }

    /// The request at t becomes the pending one, in the slot the loop reads in place of a
    /// queued event. Each request before the horizon counts as one event, as it did when
    /// it was queued (a replaced one was popped and dropped): devices.csv's `events` is
    /// unchanged.
    @inline(__always)
    mutating func makePending(at t: SimTime) {
        requestPending = true
        requestTime = t
        if t < ctx.horizon {
            nextRequest = t
            rec.tally.increment(.events)
        } else {
            nextRequest = Clock.never
        }
    }
}
