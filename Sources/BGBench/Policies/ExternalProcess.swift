import Foundation
import Synchronization

/// Why an `external` policy's run stopped: a partner process that cannot start, breaks the
/// protocol (docs/protocol.md) or does not answer, or a command line that did not allow
/// one to start. One line each; the CLI exits 76 (EX_PROTOCOL), or 64 for `notAllowed`.
public enum ExternalPolicyError: Error, Equatable, CustomStringConvertible {
    /// The command line did not say `--allow-external`: a scenario alone starts no process.
    case notAllowed
    /// `policies.external.command` is empty.
    case noCommand
    /// The process could not be started (`command` is its first argument).
    case cannotStart(command: String, reason: String)
    /// The handshake was wrong (before any device).
    case handshake(String)
    /// A device's exchange went wrong: at simulated time `time`, in answer to `request`
    /// (the message's type), with `problem` saying what.
    case partner(device: Int, time: SimTime, request: String, problem: String)
    /// One of the above, of the external policy `policy` but the first (`external2`, ...).
    indirect case named(_ policy: String, ExternalPolicyError)

    /// The error of the external policy named `policy` (`external`, `external2`, ...):
    /// the first one's errors read as they always did, the others' name their policy.
    func named(_ policy: String) -> ExternalPolicyError {
        switch self {
        case .named: self
        default: policy == ExternalPolicies.first ? self : .named(policy, self)
        }
    }

    /// A usage error (exit 64): the command line, not a partner, is wrong.
    public var isUsage: Bool {
        switch self {
        case .notAllowed, .noCommand: true
        case .named(_, let error): error.isUsage
        case .cannotStart, .handshake, .partner: false
        }
    }

    public var description: String { text(policy: ExternalPolicies.first) }

    /// The line, for the external policy named `policy`.
    func text(policy: String) -> String {
        let who = policy == ExternalPolicies.first ? "external policy" : "external policy '\(policy)'"
        return switch self {
        case .notAllowed:
            "the \(who) starts the program policies.\(policy).command names: allow it with --allow-external (a scenario alone never starts a process)"
        case .noCommand:
            "the \(who) needs a command: expected policies.\(policy).command as a list of arguments, e.g. --set 'policies.\(policy).command=[\"python3\",\"policy.py\"]'"
        case .cannotStart(let command, let reason):
            "\(who): cannot start '\(command)': \(reason)"
        case .handshake(let problem):
            "\(who): handshake: \(problem)"
        case .partner(let device, let time, let request, let problem):
            "\(who): device \(device) at \(ExternalPolicyError.format(time)) (t=\(time) µs), answering '\(request)': \(problem)"
        case .named(let name, let error):
            error.text(policy: name)
        }
    }

    /// A simulated time as `day D HH:MM:SS.ffffff`.
    static func format(_ t: SimTime) -> String {
        let day = t / Clock.day, r = t % Clock.day
        let h = r / Clock.hour, m = (r % Clock.hour) / Clock.minute, s = (r % Clock.minute) / Clock.second
        let us = r % Clock.second
        func two(_ v: SimTime) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let micros = String(us)
        return "day \(day) \(two(h)):\(two(m)):\(two(s)).\(String(repeating: "0", count: 6 - micros.count))\(micros)"
    }
}

/// The live partner processes of this bgbench, so that SIGINT or SIGTERM ends them too
/// (`terminateAll`, called by the CLI's signal thread before it exits; their protocol pipe
/// closes with this process anyway, and a client ends at its end of file).
public enum ExternalProcesses {
    static let live = Mutex<Set<pid_t>>([])

    /// Sends SIGTERM to every partner process still running.
    public static func terminateAll() {
        live.withLock { pids in for pid in pids { kill(pid, SIGTERM) } }
    }
}

/// One partner process: its request pipe (its fd 3), its answer pipe (its fd 4), and a
/// thread that copies its standard output and error to ours, each line prefixed with
/// `external[PID]: `. Used by one device at a time (``ExternalPool``).
final class ExternalChild: @unchecked Sendable {
    let pid: pid_t
    private let toChild: Int32
    private let fromChild: Int32
    private var buffer: [UInt8] = []
    /// What one read takes.
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    /// Bytes of `buffer` already searched for a line break.
    private var scanned = 0
    private var closed = false
    let timeoutMS: Int
    /// The sequence number of the last request sent.
    var seq = 0
    /// Decision messages answered (``exchange(_:)``, or in frames), and their round trips
    /// added, in ns (a frame's once).
    private(set) var exchanges = 0
    private(set) var exchangeNanoseconds: UInt64 = 0
    /// Frames sent (batching, ``frame(_:)``).
    private(set) var frames = 0
    /// Devices whose simulation ended since the last frame: the next frame's `ended`.
    var ended: [Int] = []

    /// The longest line either side may send, its line break included (docs/protocol.md).
    static let maxLine = 65_536

    /// A lock around pipe creation and spawning: a pipe made while another thread spawns
    /// must not leak into that child (every end is close-on-exec, this is belt and braces).
    private static let spawning = Mutex(())

    /// Starts `command` (looked up on PATH) with fds 3 and 4 as the protocol's pipes.
    init(command: [String], timeoutMS: Int) throws(ExternalPolicyError) {
        self.timeoutMS = timeoutMS
        // A write to a partner that has exited must be an error, not a signal that ends bgbench.
        signal(SIGPIPE, SIG_IGN)
        var pid: pid_t = 0
        var parentEnds: (Int32, Int32, Int32) = (-1, -1, -1)
        let started: Int32 = Self.spawning.withLock { _ in
            var request: [Int32] = [0, 0], answer: [Int32] = [0, 0], output: [Int32] = [0, 0]
            guard pipe(&request) == 0 else { return errno }
            guard pipe(&answer) == 0 else {
                let e = errno
                request.forEach { close($0) }
                return e
            }
            guard pipe(&output) == 0 else {
                let e = errno
                (request + answer).forEach { close($0) }
                return e
            }
            // Every end above 4, so that dup2 onto 3 and 4 always makes a new descriptor
            // (dup2 of a descriptor onto itself would keep its close-on-exec flag).
            func high(_ fd: Int32) -> Int32 {
                let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
                close(fd)
                return moved
            }
            request = request.map(high)
            answer = answer.map(high)
            output = output.map(high)
            var environment = ProcessInfo.processInfo.environment
            environment["BGBENCH_EXTERNAL_FDS"] = "3,4"
            environment["BGBENCH_EXTERNAL_PROTOCOL"] = String(ExternalProtocol.version)
            let spawned = Spawn.start(
                command[0], arguments: command, searchPath: true,
                actions: [
                    .open("/dev/null", flags: O_RDONLY, to: 0), .dup(output[1], to: 1), .dup(output[1], to: 2),
                    .dup(request[0], to: 3), .dup(answer[1], to: 4),
                ], environment: environment, defaultSIGPIPE: true)
            close(request[0]); close(answer[1]); close(output[1])
            switch spawned {
            case .success(let started): pid = started
            case .failure(let error):
                close(request[1]); close(answer[0]); close(output[0])
                return error.code
            }
            ExternalProcesses.live.withLock { _ = $0.insert(pid) }
            parentEnds = (request[1], answer[0], output[0])
            return 0
        }
        guard started == 0 else {
            throw .cannotStart(command: command[0], reason: String(cString: strerror(started)))
        }
        self.pid = pid
        (toChild, fromChild) = (parentEnds.0, parentEnds.1)
        let output = parentEnds.2, prefix = "external[\(pid)]: "
        Thread.detachNewThread { ExternalChild.relay(output, prefix: prefix) }
    }

    deinit { end() }

    /// Copies the child's output to our standard error, a prefix before each line, until
    /// its end of file.
    private static func relay(_ fd: Int32, prefix: String) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func emit(_ line: ArraySlice<UInt8>) {
            let text = Array(prefix.utf8) + line + [0x0A]
            text.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        }
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending += chunk[..<n]
            while let i = pending.firstIndex(of: 0x0A) {
                emit(pending[..<i])
                pending.removeSubrange(...i)
            }
            if pending.count > 4096 {
                emit(pending[...])
                pending.removeAll()
            }
        }
        if !pending.isEmpty { emit(pending[...]) }
        close(fd)
    }

    /// Sends one line (`line` ends with "\n"); false when the child has gone.
    func send(_ line: String) -> Bool {
        var line = line
        return line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(toChild, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// Sends a decision message and reads the answer's line: one round trip, counted.
    func exchange(_ line: String) throws(ExternalProtocol.Failure) -> ArraySlice<UInt8> {
        let start = DispatchTime.now().uptimeNanoseconds
        guard send(line) else { throw .message(exitText()) }
        let answer = try receive()
        exchanges += 1
        exchangeNanoseconds += DispatchTime.now().uptimeNanoseconds - start
        return answer
    }

    /// A frame of decision messages (docs/protocol.md, "Batching"): its header, with the
    /// devices ended since the last frame in ascending order, then the messages (each a
    /// line). Takes `ended`.
    func frame(_ lines: [String]) -> String {
        ended.sort()
        let header =
            "{\"type\":\"batch\",\"count\":\(lines.count),\"ended\":[\(ended.map(String.init).joined(separator: ","))]}\n"
        ended.removeAll(keepingCapacity: true)
        return lines.reduce(into: header) { $0 += $1 }
    }

    /// Counts a frame of `messages` answered, sent at `start` (ns).
    func count(messages: Int, since start: UInt64) {
        frames += 1
        exchanges += messages
        exchangeNanoseconds += DispatchTime.now().uptimeNanoseconds - start
    }

    /// The next line the child writes, without its line break, within `wait` ms (default:
    /// the policy's timeout).
    func receive(within wait: Int? = nil) throws(ExternalProtocol.Failure) -> ArraySlice<UInt8> {
        let wait = wait ?? timeoutMS
        if scanned > 0 && scanned == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scanned = 0
        }
        var start = scanned
        var deadline: UInt64? = nil
        while true {
            if let i = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[scanned..<i]
                scanned = i + 1
                return line
            }
            start = buffer.count
            if buffer.count - scanned >= Self.maxLine {
                throw .message("a line longer than \(Self.maxLine) bytes (docs/protocol.md, \"Limits\")")
            }
            let now = DispatchTime.now().uptimeNanoseconds
            let end = deadline ?? now + UInt64(wait) * 1_000_000
            deadline = end
            guard now < end else { throw .message(timeoutText(wait)) }
            var poller = pollfd(fd: fromChild, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(Int(end - now) / 1_000_000 + 1, Int(Int32.max))))
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { throw .message(timeoutText(wait)) }
            if scanned > 0 {
                buffer.removeSubrange(..<scanned)
                start -= scanned
                scanned = 0
            }
            let n = chunk.withUnsafeMutableBytes { read(fromChild, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .message(exitText()) }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    private func timeoutText(_ wait: Int) -> String {
        wait == timeoutMS
            ? "no answer within \(Double(wait) / 1000) s (policies.external.timeout)"
            : "no answer within \(Double(wait) / 1000) s"
    }

    /// Why the answer pipe closed: the child's exit, if it has exited within 0.2 s.
    func exitText() -> String {
        for _ in 0..<100 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                ExternalProcesses.live.withLock { _ = $0.remove(pid) }
                closed = true
                close(toChild); close(fromChild)
                let signal = status & 0x7F, code = (status >> 8) & 0xFF
                return signal == 0
                    ? "the policy process exited with code \(code) before answering"
                    : "the policy process was ended by signal \(signal) before answering"
            }
            usleep(2_000)
        }
        return "the policy process closed its answer channel (fd 4) before answering"
    }

    /// How ``end()`` found the child.
    enum Ending: Equatable {
        /// It exited by itself this many seconds after its end of file.
        case exited(after: Double)
        /// It was still running 2 s after its end of file, and was killed.
        case killed
        /// It had been ended before.
        case before
    }

    /// Closes the request pipe (the child's end of file: a client then exits), waits up to
    /// 2 s for the child, then kills it.
    @discardableResult
    func end() -> Ending {
        guard !closed else { return .before }
        closed = true
        close(toChild)
        close(fromChild)
        let start = DispatchTime.now().uptimeNanoseconds
        var status: Int32 = 0
        var ending = Ending.killed
        for _ in 0..<1000 {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno == ECHILD) {
                ending = .exited(after: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                break
            }
            usleep(2_000)
        }
        if ending == .killed {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        ExternalProcesses.live.withLock { _ = $0.remove(pid) }
        return ending
    }

    /// Ends the child at once (a partner that broke the protocol).
    func terminate() {
        guard !closed else { return }
        kill(pid, SIGKILL)
        end()
    }
}

/// An `external` policy's processes for one run and arm: one per worker thread at most
/// (a device takes a free one for its whole simulation and gives it back at its end, so
/// a process serves one device at a time and never more processes run than workers), the
/// handshake every one of them gave, and the first failure, which stops every device's
/// exchanges and is thrown when the fleet has finished (``finish()``).
final class ExternalPool: Sendable {
    /// The policy's name (`external`, `external2`, ...), which its errors carry.
    let policy: String
    let command: [String]
    let timeoutMS: Int
    let handshake: ExternalProtocol.Handshake

    private struct State: ~Copyable {
        var free: [ExternalChild] = []
        var all: [ExternalChild] = []
        var failure: ExternalPolicyError? = nil
        var traffic = ExternalTraffic()
    }
    private let state = Mutex(State())

    init(policy: String, command: [String], timeoutMS: Int) throws(ExternalPolicyError) {
        guard !command.isEmpty, !command[0].isEmpty else { throw ExternalPolicyError.noCommand.named(policy) }
        (self.policy, self.command, self.timeoutMS) = (policy, command, timeoutMS)
        let first: ExternalChild
        do { first = try ExternalChild(command: command, timeoutMS: timeoutMS) } catch { throw error.named(policy) }
        do {
            handshake = try ExternalProtocol.greet(first)
        } catch {
            first.terminate()
            throw error.named(policy)
        }
        state.withLock {
            $0.free.append(first)
            $0.all.append(first)
        }
    }

    deinit { state.withLock { for child in $0.all { child.end() } } }

    /// The policy the handshake named.
    var identity: ExternalPolicyIdentity {
        ExternalPolicyIdentity(
            name: handshake.name, version: handshake.version, knob: handshake.knob.isEmpty ? nil : handshake.knob)
    }

    /// A free process, started (and greeted) when none is free; nil once the run has failed.
    func checkout() -> ExternalChild? {
        let taken: ExternalChild?? = state.withLock { state in
            if state.failure != nil { return .some(nil) }
            return state.free.popLast().map { .some($0) } ?? nil
        }
        if let taken { return taken }
        do {
            let child = try ExternalChild(command: command, timeoutMS: timeoutMS)
            let greeting = try ExternalProtocol.greet(child)
            guard greeting == handshake else {
                child.terminate()
                throw ExternalPolicyError.handshake(
                    "process \(child.pid) greeted differently from the first: \(greeting.line) after \(handshake.line) (every process of a run must declare the same policy)"
                )
            }
            state.withLock { $0.all.append(child) }
            return child
        } catch let error as ExternalPolicyError {
            fail(error)
        } catch {
            fail(.handshake("\(error)"))
        }
        return nil
    }

    /// Gives a process back after its device's simulation.
    func checkin(_ child: ExternalChild) { state.withLock { $0.free.append(child) } }

    /// Records the run's first failure (later ones are consequences, or races).
    func fail(_ error: ExternalPolicyError) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    var failed: Bool { state.withLock { $0.failure != nil } }

    /// Ends every process, adding up their ``traffic``; throws the run's first failure.
    func finish() throws(ExternalPolicyError) {
        let (children, failure) = state.withLock { state in
            let result = (state.all, state.failure)
            state.all.removeAll()
            state.free.removeAll()
            return result
        }
        var traffic = ExternalTraffic()
        for child in children {
            traffic.messages += child.exchanges
            traffic.frames += child.frames
            traffic.roundTripSeconds += Double(child.exchangeNanoseconds) / 1e9
            switch child.end() {
            case .exited(let seconds):
                traffic.processes += 1
                traffic.slowestExit = max(traffic.slowestExit, seconds)
            case .killed:
                traffic.processes += 1
                traffic.killed += 1
            case .before: break
            }
        }
        state.withLock { $0.traffic = traffic }
        if let failure { throw failure.named(policy) }
    }

    /// What the processes did, once ``finish()`` has ended them.
    var traffic: ExternalTraffic { state.withLock { $0.traffic } }
}

/// What an `external` policy's processes did in one fleet run (``FleetResult/externalTraffic``):
/// facts about the execution, which vary from run to run and are in no report; `bgbench
/// conformance` reads them (docs/protocol.md, "Conformance": checks 5 and 6).
package struct ExternalTraffic: Sendable, Equatable {
    /// Decision messages answered.
    package var messages = 0
    /// The frames they were sent in, when the policy batches (docs/protocol.md,
    /// "Batching"); 0 otherwise.
    package var frames = 0
    /// Their round trips added up, each from writing the message to reading its answer: s.
    package var roundTripSeconds = 0.0
    /// Processes ended when the run ended (their fd 3 closed), and among them those still
    /// running 2 s later (killed then).
    package var processes = 0
    package var killed = 0
    /// The longest any of the others took to exit after its fd 3 closed: s.
    package var slowestExit = 0.0
    package init() {}
}
