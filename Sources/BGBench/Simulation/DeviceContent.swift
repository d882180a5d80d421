import Foundation

// MARK: - Content kinds and the processing task (docs/content.md)

extension DeviceSimulation {
    /// The events of the content kinds and the processing task, out of the news path.
    @inline(never)
    mutating func contentEvent(_ kind: SimEvent, payload: UInt16, at t: SimTime) {
        switch kind {
        case .serverJob: serverJob(at: t)
        case .transferDone: if transfer.pending && payload == transfer.generation { transferDue(at: t) }
        case .processingDue: considerProcessing(at: t)
        case .processingEnd: if processing.running && payload == processing.generation { processingCompleted(at: t) }
        case .processingDeadline:
            if processing.deadlinePassed(instance: payload) {
                if counting(t) {
                    rec.tally.increment(.processingMissed)
                    rec.record(.processingMissed, 1, at: t)
                }
                if tracing { log("processing", "deadline_passed", at: t) }
            }
        default: break
        }
    }

    /// `catalog`: the images a stale open fetches with the metadata, and whether the cache
    /// then holds everything (not when the images are Wi-Fi-only and the device is on cellular).
    @inline(__always)  // non-mutating: inlined, so self is not copied
    func foregroundImages(items: Int, on net: NetworkKind) -> (bytes: Double, holds: Bool) {
        let images = imageBytes(items: items)
        let skips = images > 0 && net.isCellular && ctx.scenario.content.catalog.wifiOnly
        return skips ? (0, false) : (images, true)
    }

    /// `sync`: the first daily server job, at `server_job_at` UTC in device-local time.
    @inline(__always)  // non-mutating: inlined, so self is not copied
    func firstServerJob() -> SimTime {
        let at = ctx.scenario.content.sync.serverJobAt.ticks + traits.utcOffset
        return ((at % Clock.day) + Clock.day) % Clock.day
    }

    /// `sync`: the server reads its copy; the lag is the age of the oldest item the device
    /// has not uploaded (0 when it has uploaded everything).
    @inline(never)
    mutating func serverJob(at t: SimTime) {
        if counting(t) {
            let first = cursor.firstMissingTime
            let lag = first <= t ? t - first : 0
            let onTime = lag <= ctx.scenario.content.sync.targetAge.ticks
            rec.tally.increment(.serverJobs)
            rec.tally[ticks: .serverLag] += lag
            rec.record(.serverLag, Clock.seconds(lag), at: t)
            if onTime {
                rec.tally.increment(.serverOnTime)
                rec.record(.serverOnTime, 1, at: t)
            }
            if tracing { log("server_job", onTime ? "on_time" : "late", Clock.seconds(lag), at: t) }
        }
        schedule(.serverJob, at: t + Clock.day)
    }

    /// `catalog`: the image bytes of `items` new items (a full refresh: of the full set).
    @inline(__always)  // non-mutating: inlined, so self is not copied
    func imageBytes(items: Int) -> Double {
        let app = ctx.scenario.app
        let count = app.sync == .delta ? items : (items > 0 ? app.fullSetItems : 0)
        return Double(count) * ctx.scenario.content.catalog.imageKilobytesPerItem * 1000
    }

    /// `catalog`: what a run starting on `net` does with the images of `items` new items:
    /// returns the bytes it downloads itself, and sets whether its success brings the
    /// cache to its start and what it hands to a background transfer.
    @inline(never)
    mutating func planImages(items: Int, on net: NetworkKind) -> Double {
        let c = ctx.scenario.content.catalog
        let images = imageBytes(items: items)
        inFlightHolds = true
        inFlightTransferBytes = 0
        guard images > 0 else { return 0 }
        if c.backgroundTransfer {
            inFlightHolds = false
            inFlightTransferBytes = images
            return 0
        }
        if c.wifiOnly && net.isCellular {
            inFlightHolds = false  // the metadata only: the images wait for a run on Wi-Fi
            return 0
        }
        return images
    }

    /// A successful run hands its images to the background transfer.
    @inline(never)
    mutating func handToTransfer(at t: SimTime) {
        let c = ctx.scenario.content.catalog
        let delay = Clock.ticks(
            seconds: transferRNG.lognormal(median: c.transferDelayMedian.seconds, sigma: c.transferDelaySigma))
        if let due = transfer.hand(bytes: inFlightTransferBytes, holdsUpTo: inFlightStart, at: t, delay: delay) {
            schedule(.transferDone, at: due, payload: transfer.generation)
        }
        if tracing { log("transfer", "handed", inFlightTransferBytes, at: t) }
    }

    /// The system runs the pending transfer: off Wi-Fi (Wi-Fi-only) or offline it waits
    /// `transfer_retry`; else it downloads the images and the cache holds the items.
    @inline(never)
    mutating func transferDue(at t: SimTime) {
        let c = ctx.scenario.content.catalog
        let net = network.at(t)
        if net == .offline || (c.wifiOnly && net != .wifi) {
            schedule(.transferDone, at: t + c.transferRetry.ticks, payload: transfer.generation)
            return
        }
        let bytes = transfer.bytes
        let energy = task.transferEnergy(bytes: bytes, on: net)
        if hasBattery { battery.spend(energy, at: t); noteBattery(at: t) }
        if counting(t) {
            rec.tally.increment(.transfers)
            rec.tally[amount: .backgroundEnergy] += energy
            rec.record(.backgroundEnergy, energy, at: t)
            rec.serverRequests(1, at: t)
            rec.received(bytes, images: bytes, on: net, at: t)
        }
        if tracing { log("transfer", net.label, bytes, at: t) }
        if transfer.holdsUpTo > cacheTime {
            cacheTime = transfer.holdsUpTo
            cursor.cache(upTo: cacheTime)
        }
        transfer.finish()
    }

    /// Starts the processing task if it is due and the device is idle (screen off) with
    /// its requirements met: power and network as asked, and the gates a discretionary
    /// task obeys (Background App Refresh on, not force-quit, no Low Power Mode, battery
    /// not low). Called whenever one of these may have come to hold.
    @inline(never)
    mutating func considerProcessing(at t: SimTime) {
        guard processingEnabled, !processing.running, t >= processing.due, screenCount == 0, !foreground,
            !traits.barOff, !forceQuit, !processing.requiresPower || chargeCount > 0
        else { return }
        if hasBattery {
            battery.advance(to: t)
            if battery.lowPower || battery.isLow { return }
        }
        if processing.requiresNetwork && network.at(t) == .offline { return }
        let end = processing.start(at: t)
        schedule(.processingEnd, at: end, payload: processing.generation)
        if tracing { log("processing", "started", Clock.seconds(end - t), at: t) }
    }

    /// The screen came on or the phone was unplugged: the task stops, keeping its work.
    @inline(never)
    mutating func interruptProcessing(at t: SimTime) {
        let energy = processing.interrupt(at: t)
        bookProcessing(energy, at: t)
        if counting(t) { rec.tally.increment(.processingInterruptions) }
        if tracing { log("processing", "interrupted", Clock.seconds(processing.remaining), at: t) }
    }

    @inline(never)
    mutating func processingCompleted(at t: SimTime) {
        let (energy, onTime) = processing.complete(at: t)
        bookProcessing(energy, at: t)
        if counting(t) {
            rec.tally.increment(.processingCompleted)
            if onTime {
                rec.tally.increment(.processingOnTime)
                rec.record(.processingOnTime, 1, at: t)
            }
        }
        if tracing { log("processing", onTime ? "completed" : "completed_late", chargeCount > 0 ? 1 : 0, at: t) }
        schedule(.processingDue, at: processing.due)
        schedule(.processingDeadline, at: processing.due + processing.deadline, payload: processing.instance)
    }

    @inline(never)
    mutating func bookProcessing(_ energy: Double, at t: SimTime) {
        if hasBattery { battery.spend(energy, at: t); noteBattery(at: t) }
        if counting(t) {
            rec.tally[amount: .processingEnergy] += energy
            rec.record(.processingEnergy, energy, at: t)
        }
    }
}
