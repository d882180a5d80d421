import BGBench
import Foundation
import Synchronization

/// SIGINT and SIGTERM for the commands that write report folders or files (run, sweep,
/// check, bench): the process exits 130 or 143 with every folder and file it was asked for
/// exactly as before the command, and no staging folder or temporary file left.
///
/// Design: `install()` blocks both signals in the main thread before any other thread
/// starts (threads inherit the mask, so the simulation's workers never take them), and
/// starts one thread that waits for them with `sigwait`. No code runs in a signal-handler
/// context, so the waiting thread may do anything: it takes the lock every write holds
/// (``critical(_:)``), removes the tracked staging folders and temporary files, writes one
/// line to standard error and ends the process with `_exit(128 + signal)`. Writes into a
/// staging folder hold the lock one file at a time, so a signal waits at most for the file
/// being written, and then the folder is removed whole; the swap that puts a finished
/// folder in place holds it too. Once a command has put its folder in place (the swap sets
/// ``State/settled`` under the lock), a signal is too late to undo it and is ignored: the
/// command finishes and exits 0. The kernel releases the `flock` of a process that ends,
/// so a lock never outlives its writer.
///
/// Without `install()` (tests that run commands in-process), the lock and the tracking
/// still work and signals keep their default action.
enum Interruption {
    struct State {
        /// Staging folders and temporary files to remove if a signal ends the process.
        var tracked: [String] = []
        /// Everything is in place: a signal no longer changes the outcome.
        var settled = false
    }

    static let state = Mutex(State())

    /// Blocks SIGINT and SIGTERM in the calling thread (call it first thing, from the main
    /// thread) and starts the thread that handles them.
    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let thread = Thread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            while true {
                var signal: Int32 = 0
                guard sigwait(&set, &signal) == 0 else { continue }
                state.withLock { state in
                    guard !state.settled else { return }
                    let name = signal == SIGINT ? "SIGINT" : "SIGTERM", exitCode = 128 + signal
                    finish(
                        state, code: exitCode,
                        line: "\nerror: interrupted by \(name): nothing was written, every output is as it was\n")
                }
            }
        }
        thread.start()
    }

    /// Ends the process with `code` and `line` on standard error, holding the lock: the
    /// tracked staging folders and temporary files are removed, a folder already in place
    /// stays (a standard output that cannot be written).
    static func end(code: Int32, line: String) -> Never {
        state.withLock { state in finish(state, code: code, line: line) }
    }

    private static func finish(_ state: State, code: Int32, line: String) -> Never {
        for path in state.tracked { try? FileManager.default.removeItem(atPath: path) }
        ExternalProcesses.terminateAll()
        _ = line.withCString { write(2, $0, strlen($0)) }
        _exit(code)
    }

    /// Runs `body` holding the lock the signal thread takes: a signal waits for it.
    static func critical(_ body: (inout State) throws -> Void) throws {
        try state.withLock { state in try body(&state) }
    }

    /// Removes `path` if a signal ends the process before ``untrack(_:)``.
    static func track(_ path: String) { state.withLock { $0.tracked.append(path) } }

    static func untrack(_ path: String) { state.withLock { $0.tracked.removeAll { $0 == path } } }
}
