import Foundation
import Synchronization

/// One progress line on standard error while a run goes (device-days done, rate, ETA),
/// redrawn at most 10 times a second, and only when standard error is a terminal: never
/// in a pipe, a file or CI logs, never on standard output. A sweep also shows one while
/// it loads and plans its points (`planning: 1200/1000000 points ...`).
final class ProgressLine: Sendable {
    private struct State {
        var done = 0
        var lastDraw = 0.0
        var drawn = false
    }
    private let total: Int
    /// What the line leads with ("" or `planning: `) and what it counts.
    private let lead: String, unit: String
    private let start = Date()
    private let state = Mutex(State())

    /// nil when standard error is not a terminal or the user asked for quiet.
    static func make(total: Int, quiet: Bool, lead: String = "", unit: String = "device-days") -> ProgressLine? {
        quiet || isatty(STDERR_FILENO) == 0 ? nil : ProgressLine(total: total, lead: lead, unit: unit)
    }

    private init(total: Int, lead: String, unit: String) {
        self.total = max(1, total)
        self.lead = lead
        self.unit = unit
    }

    /// Adds finished device-days, or whatever the line counts (called from worker threads).
    func advance(_ count: Int) {
        let line: String? = state.withLock { s in
            s.done += count
            let elapsed = Date().timeIntervalSince(start)
            guard elapsed - s.lastDraw >= 0.1 || s.done >= total else { return nil }
            s.lastDraw = elapsed
            s.drawn = true
            let rate = Double(s.done) / max(elapsed, 1e-9)
            let eta = Double(total - s.done) / max(rate, 1e-9)
            return
                "\r\u{1B}[K\(lead)\(s.done)/\(total) \(unit)  \(SummaryTable.fixed(rate.rounded(.down), 0)) \(unit)/s  ETA \(SummaryTable.fixed(eta, 0)) s"
        }
        if let line {
            var errors = StandardStream.error
            errors.write(line)
        }
    }

    /// Clears the line.
    func finish() {
        if state.withLock({ $0.drawn }) {
            var errors = StandardStream.error
            errors.write("\r\u{1B}[K")
        }
    }
}
