import BGBench

/// The summary printed after a run: one line per policy with the headline metrics.
enum SummaryTable {
    static func render(_ report: RunReport) -> String {
        let columns: [(String, Int)] = [("policy", 12), ("opens/d", 8), ("fresh %", 8), ("stale s", 9),
                                        ("p95 s", 9), ("runs/d", 7), ("denied/d", 9), ("kills", 7),
                                        ("J/d", 8), ("%batt/d", 8)]
        func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        var lines = [columns.map { pad($0.0, $0.1) }.joined(separator: " ")]
        let scenario = report.request.scenario.scenario
        for r in report.results {
            let e = FleetEstimates(tally: r.tally, days: report.countedDays)
            let battery = scenario.device.batteryWh * 3600
            let replicated = report.request.replications > 1
            let values = [
                replicated ? "\(r.policy)@\(r.seed)" : r.policy,
                fixed(e.perDeviceDay(.opens).value, 2),
                fixed(100 * e.perOpen(.freshOpens).value, 1),
                fixed(e.perOpen(.staleness).value, 0),
                fixed(r.tally.staleness.quantile(0.95) ?? .nan, 0),
                fixed(e.perDeviceDay(.runs).value, 2),
                fixed(e.perDeviceDay(.denied).value, 2),
                String(Int(r.tally[.killed])),
                fixed(e.perDeviceDay(.backgroundEnergy).value, 1),
                fixed(e.perDeviceDay(.backgroundEnergy, scale: 100 / battery).value, 3),
            ]
            lines.append(zip(values, columns).map { pad($0, $1.1) }.joined(separator: " "))
        }
        lines += kindLines(report, pad: pad)
        let o = report.request.options
        let rate = Double(report.deviceDays) / max(report.wallSeconds, 1e-9)
        let seeds = report.request.replications > 1 ? "seeds \(o.seed)–\(o.seed &+ UInt64(report.request.replications - 1))" : "seed \(o.seed)"
        lines.append("\(o.devices) devices × \(o.days) days × \(report.request.policies.count) policies, \(seeds): "
                     + "\(fixed(report.wallSeconds, 2)) s, \(fixed(rate, 0)) device-days/s on \(report.threads) threads")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The headline figures of the content kind and the processing task, when the
    /// scenario has them (docs/content.md): a second small table.
    static func kindLines(_ report: RunReport, pad: (String, Int) -> String) -> [String] {
        let scenario = report.request.scenario.scenario
        var columns: [(String, Int, (FleetEstimates) -> String)] = []
        switch scenario.content.kind {
        case .news: break
        case .sync:
            columns += [("server lag s", 13, { fixed($0.perDeviceDay(.serverLag).value, 0) }),
                        ("on time %", 10, { fixed(100 * $0.perDeviceDay(.serverOnTime).value, 1) })]
        case .catalog:
            columns += [("transfers/d", 12, { fixed($0.perDeviceDay(.transfers).value, 2) }),
                        ("cell img B/d", 13, { fixed($0.perDeviceDay(.cellularImageBytes).value, 0) })]
        case .messages:
            // Silent push carries a messaging app (the `push` policy; 0 for the others).
            columns += [("push sent/d", 12, { fixed($0.perDeviceDay(.pushSent).value, 2) }),
                        ("push runs/d", 12, { fixed($0.perDeviceDay(.pushRuns).value, 2) }),
                        ("push lost/d", 12, { fixed($0.perDeviceDay(.pushLost).value, 2) })]
        }
        if scenario.app.processing.enabled {
            columns += [("proc on time %", 15, { e in
                            let resolved = e.tally[.processingOnTime] + e.tally[.processingMissed]
                            return fixed(resolved > 0 ? 100 * e.tally[.processingOnTime] / resolved : .nan, 1) }),
                        ("proc done/d", 12, { fixed($0.perDeviceDay(.processingCompleted).value, 3) }),
                        ("interrupts/d", 13, { fixed($0.perDeviceDay(.processingInterruptions).value, 3) })]
        }
        guard !columns.isEmpty else { return [] }
        var lines = [pad("policy", 12) + " " + columns.map { pad($0.0, $0.1) }.joined(separator: " ")]
        for r in report.results {
            let e = FleetEstimates(tally: r.tally, days: report.countedDays)
            let name = report.request.replications > 1 ? "\(r.policy)@\(r.seed)" : r.policy
            lines.append(pad(name, 12) + " " + columns.map { pad($0.2(e), $0.1) }.joined(separator: " "))
        }
        return lines
    }

    /// A number with a fixed count of decimals, independent of the locale.
    static func fixed(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return "-" }
        let scale = pow(10.0, Double(decimals))
        let rounded = (x * scale).rounded() / scale
        var text = String(Int64(rounded.magnitude.rounded(.down)))
        if decimals > 0 {
            let fraction = Int64(((rounded.magnitude - rounded.magnitude.rounded(.down)) * scale).rounded())
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return (rounded < 0 ? "-" : "") + text
    }
}

import Foundation
