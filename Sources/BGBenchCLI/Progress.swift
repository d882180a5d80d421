import Foundation
import Synchronization

/// One progress line on standard error while a run goes (device-days done, rate, ETA),
/// redrawn at most 10 times a second, and only when standard error is a terminal: never
/// in a pipe, a file or CI logs, never on standard output.
final class ProgressLine: Sendable {
    private struct State {
        var done = 0
        var lastDraw = 0.0
        var drawn = false
    }
    private let total: Int
    private let start = Date()
    private let state = Mutex(State())

    /// nil when standard error is not a terminal or the user asked for quiet.
    static func make(total: Int, quiet: Bool) -> ProgressLine? {
        quiet || isatty(STDERR_FILENO) == 0 ? nil : ProgressLine(total: total)
    }

    private init(total: Int) { self.total = max(1, total) }

    /// Adds finished device-days (called from worker threads).
    func advance(_ deviceDays: Int) {
        let line: String? = state.withLock { s in
            s.done += deviceDays
            let elapsed = Date().timeIntervalSince(start)
            guard elapsed - s.lastDraw >= 0.1 || s.done >= total else { return nil }
            s.lastDraw = elapsed
            s.drawn = true
            let rate = Double(s.done) / max(elapsed, 1e-9)
            let eta = Double(total - s.done) / max(rate, 1e-9)
            return
                "\r\u{1B}[K\(s.done)/\(total) device-days  \(SummaryTable.fixed(rate.rounded(.down), 0)) device-days/s  ETA \(SummaryTable.fixed(eta, 0)) s"
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
