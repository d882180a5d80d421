import Foundation

/// The external policies a run can hold side by side, each its own program and
/// parameters (`policies.external.command`, `policies.external2.command`, ...): compared
/// paired as built-in policies are (docs/protocol.md, "Several external policies").
public enum ExternalPolicies {
    /// `external`: the one most runs use, whose errors read `external policy: ...`.
    public enum First: ExternalSlot { public static let name = "external" }
    public enum Second: ExternalSlot { public static let name = "external2" }
    public enum Third: ExternalSlot { public static let name = "external3" }

    public static let first = First.name
    /// Every external policy's name, in registry order.
    public static let names = [First.name, Second.name, Third.name]

    /// What the handshakes of the external policies among `results` declared, by policy
    /// name; nil when none ran (run.json's and a shard identity's `external_policies`).
    public static func identities(_ results: [PolicyResult]) -> [String: ExternalPolicyIdentity]? {
        let pairs = results.compactMap { r in r.result.externalPolicy.map { (r.policy, $0) } }
        return pairs.isEmpty ? nil : Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
    /// The registry's entries (`PolicyRegistry.builtIn`).
    static let entries = [
        PolicyEntry(ExternalPolicy<First>.self), PolicyEntry(ExternalPolicy<Second>.self),
        PolicyEntry(ExternalPolicy<Third>.self),
    ]
}

/// One of the external policies' names (``ExternalPolicies``).
public protocol ExternalSlot: Sendable {
    static var name: String { get }
}

/// `external` (and `external2`, `external3`): a policy in another process, in any
/// language (docs/protocol.md). bgbench starts `policies.<name>.command` (only when the
/// command line says `--allow-external`), one process per worker thread at most, and
/// asks it, device by device, what a Swift policy would decide, over the process's fds 3
/// and 4 in JSON lines: the handshake names the policy and the callbacks it subscribes to
/// (the others are answered `keep` here, never sent), and may declare a denial rule
/// (`grid`: the next point of the request's grid, as `fixed` answers) that bgbench applies
/// itself instead of sending each denial. A partner that breaks the protocol stops the
/// run with one line naming the device, the simulated time and the message
/// (``ExternalPolicyError``).
public struct ExternalPolicy<Slot: ExternalSlot>: WakePolicy {
    public static var name: String { Slot.name }
    public static var summary: String {
        Slot.name == ExternalPolicies.first
            ? "a policy in another process, any language (policies.external.command, --allow-external; docs/protocol.md)"
            : "another external policy beside `external`, run side by side with it (policies.\(Slot.name).command)"
    }
    public static var needsInput: Bool { true }
    /// Every callback reaches the policy value, which sends only those the process
    /// subscribed to: the subscriptions are known at the handshake, not when compiled.
    public static var callbacks: PolicyCallbacks { .all }

    /// Starts the first process and reads its handshake (`Fleet` refuses first when the
    /// command line did not allow external processes).
    public static func prepare(_ scenario: Scenario) throws -> (any Sendable)? {
        let p = scenario.policies[Self.self]
        return try ExternalPool(
            policy: Slot.name, command: p.command, timeoutMS: max(1, Int(p.timeout.ticks / Clock.millisecond)))
    }

    let pool: ExternalPool
    /// The device's process for its whole simulation, unbatched; nil batched or once the
    /// run has failed.
    let lease: ExternalLease?
    /// Batched: the device's place in its block's frames (``ExternalBatch``).
    let slot: ExternalBatchSlot?
    let device: Int
    let horizon: SimTime
    let subscribed: PolicyCallbacks
    /// The denial rule's grid step (0: no rule, denials are sent if subscribed).
    let grid: SimTime
    /// The time of the last request the process asked for: the grid's current point.
    var last: SimTime = 0
    var seq = 0
    let seed: (UInt64, UInt64, UInt64, UInt64)
    let platform: String

    public init(_ context: PolicyContext) {
        let slot = context.prepared as? ExternalBatchSlot
        guard let pool = slot?.batch.pool ?? context.prepared as? ExternalPool else {
            preconditionFailure("\(Slot.name) runs with the processes ExternalPolicy.prepare started")
        }
        self.pool = pool
        self.slot = slot
        device = context.deviceIndex
        horizon = context.horizon
        subscribed = pool.handshake.callbacks
        grid = pool.handshake.grid
        let r = context.random
        seed = (r.s0, r.s1, r.s2, r.s3)
        platform = context.platform
        // A batched device shares its block's process (``ExternalBatch``).
        lease = slot == nil ? pool.checkout().map { ExternalLease(pool: pool, child: $0) } : nil
    }

    /// Asks the process: `type`, the view and `extra` (`,"key":value...`); its decision,
    /// or `keep` once the run has failed (the failure is thrown when the fleet ends).
    mutating func ask(_ type: String, _ view: DeviceView, _ extra: String = "") -> WakeDecision {
        guard live else { return .keep }
        let line =
            "{\"type\":\"\(type)\",\"seq\":\(seq),\"device\":\(device),\"now\":\(view.now)\(extra),\"battery\":\(view.batteryLevel),\"charging\":\(view.charging),\"low_power\":\(view.lowPower),\"network\":\"\(view.network.label)\",\"screen_on\":\(view.screenOn),\"foreground\":\(view.foreground)}\n"
        let latest = horizon + Clock.week
        let answered: WakeDecision?
        if let slot {
            answered = slot.ask(.init(device: device, type: type, line: line, seq: seq, now: view.now, latest: latest))
        } else {
            answered = exchange(line, type, now: view.now, latest: latest)
        }
        guard let decision = answered else { return .keep }
        seq += 1
        if case .request(let at) = decision { last = at }
        return decision
    }

    /// Whether the device still talks to a process: not once its exchange broke. (A batched
    /// device asks its block, which answers nil once the run has failed.)
    var live: Bool { slot != nil || lease?.broken == false }

    /// One round trip over the device's own process: the decision, or nil when the
    /// exchange broke (the run fails when the fleet ends).
    func exchange(_ line: String, _ type: String, now: SimTime, latest: SimTime) -> WakeDecision? {
        guard let lease else { return nil }
        do {
            return try ExternalProtocol.decision(lease.child.exchange(line), seq: seq, now: now, latest: latest)
        } catch {
            guard case .message(let problem) = error else { return nil }
            lease.broken = true
            pool.fail(.partner(device: device, time: now, request: type, problem: problem))
            return nil
        }
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision {
        ask(
            "start", view,
            ",\"horizon\":\(horizon),\"platform\":\"\(platform)\",\"seed\":[\(seed.0),\(seed.1),\(seed.2),\(seed.3)]")
    }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        subscribed.contains(.opened) ? ask("opened", view) : .keep
    }

    /// The denial rule's answer: the first point of the grid after `t`.
    mutating func gridPoint(after t: SimTime) -> SimTime {
        while last <= t { last += grid }
        return last
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        if grid > 0 { return live ? .request(at: gridPoint(after: view.now)) : .keep }
        guard subscribed.contains(.denied) else { return .keep }
        return ask("denied", view, ",\"reason\":\"\(reason.label)\",\"retry_at\":\(retryAt.map { "\($0)" } ?? "null")")
    }

    public mutating func deniedAhead(at t: SimTime) -> SimTime? {
        grid > 0 && live ? gridPoint(after: t) : nil
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        subscribed.contains(.runStarted) ? ask("run_started", view) : .keep
    }

    public mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        subscribed.contains(.runEnded) ? ask("run_ended", view, ",\"status\":\"\(status.label)\"") : .keep
    }

    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
        subscribed.contains(.stateChanged) ? ask("state_changed", view) : .keep
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        subscribed.contains(.midnight) ? ask("midnight", view) : .keep
    }
}

/// What an external policy's handshake declared: recorded in run.json and in a shard's
/// identity (`external_policies`, by policy name), so a report names the policy, not only
/// its command.
public struct ExternalPolicyIdentity: Codable, Sendable, Equatable {
    public var name: String
    public var version: String
    /// The knob as the handshake gave it (JSON text); absent when none was declared.
    public var knob: String?
}

extension ExternalPolicyIdentity: CustomStringConvertible {
    /// `NAME VERSION` and the knob when there is one, as an error message names it.
    public var description: String { "\(name) \(version)" + (knob.map { " knob \($0)" } ?? "") }
}

/// A device's hold on a process for its whole simulation: given back when the device's
/// policy value goes (a process that broke the protocol is ended instead).
final class ExternalLease {
    let pool: ExternalPool
    let child: ExternalChild
    var broken = false
    init(pool: ExternalPool, child: ExternalChild) { (self.pool, self.child) = (pool, child) }
    deinit {
        if broken || pool.failed { child.terminate() } else { pool.checkin(child) }
    }
}

/// The JSON lines of docs/protocol.md, version 1.
package enum ExternalProtocol {
    static let version = 1
    /// The shortest wait for a handshake, in ms: a program's start-up (an interpreter and
    /// its imports, on a loaded machine) may take longer than one answer.
    static let handshakeWait = 30_000

    /// A broken exchange, said in a few words (the device and time are added by the caller).
    enum Failure: Error { case message(String) }

    /// What a process declared in its handshake.
    package struct Handshake: Equatable, Sendable {
        package var name: String
        package var version: String
        /// The knob's JSON text, "" when none was declared.
        package var knob: String
        package var callbacks: PolicyCallbacks
        /// The denial rule's grid step, µs (0: no rule).
        package var grid: SimTime
        /// The process takes its messages in frames, a block's devices side by side
        /// (docs/protocol.md, "Batching").
        package var batches: Bool
        /// The handshake line as received (for messages).
        var line: String
        package static func == (a: Self, b: Self) -> Bool {
            a.name == b.name && a.version == b.version && a.knob == b.knob && a.callbacks == b.callbacks
                && a.grid == b.grid && a.batches == b.batches
        }
        /// The callbacks subscribed to, by their protocol names, in the protocol's order.
        package var callbackNames: [String] {
            ExternalProtocol.callbackNames.filter { callbacks.contains($0.1) }.map(\.0)
        }
    }

    /// The handshake `command`'s process gives when started outside any run (`bgbench
    /// conformance`'s first check); the process is killed then.
    package static func handshake(of command: [String], timeoutMS: Int) throws(ExternalPolicyError) -> Handshake {
        guard let program = command.first, !program.isEmpty else { throw .noCommand }
        let child = try ExternalChild(command: command, timeoutMS: timeoutMS)
        defer { child.terminate() }
        return try greet(child)
    }

    static let callbackNames: [(String, PolicyCallbacks)] = [
        ("opened", .opened), ("denied", .denied), ("run_started", .runStarted), ("run_ended", .runEnded),
        ("state_changed", .stateChanged), ("midnight", .midnight),
    ]

    /// An answer in the form the protocol's examples write (and `bgbench.Policy` sends),
    /// read without the JSON parser: `{"seq":N,"decision":"keep"}`, `..."cancel"}` or
    /// `..."request","at":T}`, no spaces, N and T plain integers; nil for anything else,
    /// which the parser then reads (the same answer either way).
    static func canonical(_ line: ArraySlice<UInt8>) -> (seq: Int, decision: WakeDecision)? {
        var i = line.startIndex
        func literal(_ text: StaticString) -> Bool {
            let n = text.utf8CodeUnitCount
            guard line.endIndex - i >= n else { return false }
            for k in 0..<n where line[i + k] != text.utf8Start[k] { return false }
            i += n
            return true
        }
        func integer() -> Int64? {
            var value: Int64 = 0, digits = 0
            let first = i
            while i < line.endIndex, line[i] >= 0x30, line[i] <= 0x39, digits < 18 {
                value = value * 10 + Int64(line[i] - 0x30)
                i += 1
                digits += 1
            }
            // A leading zero, no digit or too many: the parser decides.
            guard digits > 0, digits < 18, !(digits > 1 && line[first] == 0x30) else { return nil }
            return value
        }
        guard literal(#"{"seq":"#), let seq = integer(), literal(#","decision":""#) else { return nil }
        let decision: WakeDecision
        if literal(#"keep"}"#) {
            decision = .keep
        } else if literal(#"cancel"}"#) {
            decision = .cancel
        } else if literal(#"request","at":"#), let at = integer(), literal("}") {
            decision = .request(at: at)
        } else {
            return nil
        }
        return i == line.endIndex ? (Int(seq), decision) : nil
    }

    /// A line as a message shows it: at most 120 bytes.
    static func excerpt(_ line: some Collection<UInt8>) -> String {
        let text = String(decoding: line.prefix(120), as: UTF8.self)
        return line.count > 120 ? text + "…" : text
    }

    /// Sends bgbench's hello and reads the process's.
    static func greet(_ child: ExternalChild) throws(ExternalPolicyError) -> Handshake {
        let hello = "{\"type\":\"hello\",\"protocol\":\(version),\"bgbench\":\"\(BuildInfo.version)\"}\n"
        do {
            guard child.send(hello) else { throw Failure.message(child.exitText()) }
            let line = try child.receive(within: max(child.timeoutMS, handshakeWait))
            return try handshake(line)
        } catch {
            guard case .message(let problem) = error as? Failure else { throw .handshake("\(error)") }
            throw .handshake(problem)
        }
    }

    static func object(_ line: some Collection<UInt8>) throws(Failure) -> JSONObject {
        if line.contains(0) { throw .message("a NUL byte in the line: \(excerpt(line))") }
        let text = String(decoding: line, as: UTF8.self)
        let parsed: JSONDocument
        do { parsed = try JSONParser.parse(text) } catch {
            throw .message(
                "a malformed line (\(error.message) at column \(error.position.column)): \(excerpt(line))")
        }
        guard let object = parsed.root.object else { throw .message("a line that is no JSON object: \(excerpt(line))") }
        return object
    }

    /// A JSON integer (no fraction, no exponent) in Int64.
    static func integer(_ value: JSONValue?) -> Int64? {
        guard case .number(_, let text)? = value else { return nil }
        return Int64(text)
    }

    /// The process's hello, checked.
    static func handshake(_ line: ArraySlice<UInt8>) throws(Failure) -> Handshake {
        let o = try object(line)
        let shown = excerpt(line)
        guard case .string("hello")? = o["type"] else { throw .message("expected a hello message, got: \(shown)") }
        guard integer(o["protocol"]) == Int64(version) else {
            throw .message("expected protocol \(version), got: \(shown)")
        }
        guard case .string(let name)? = o["name"], !name.isEmpty, name.utf8.count <= 64 else {
            throw .message("expected a \"name\" of 1 to 64 bytes, got: \(shown)")
        }
        guard case .string(let policyVersion)? = o["version"], policyVersion.utf8.count <= 64 else {
            throw .message("expected a \"version\" string of at most 64 bytes, got: \(shown)")
        }
        var knob = ""
        if let value = o["knob"], value != .null {
            knob = value.text
        }
        var callbacks: PolicyCallbacks = []
        if let list = o["callbacks"] {
            guard let names = list.array else { throw .message("expected \"callbacks\" as a list, got: \(shown)") }
            for entry in names {
                guard case .string(let n) = entry, let c = callbackNames.first(where: { $0.0 == n })?.1 else {
                    throw .message(
                        "an unknown callback in \(shown): expected \(callbackNames.map { $0.0 }.joined(separator: ", "))"
                    )
                }
                callbacks.insert(c)
            }
        }
        var grid: SimTime = 0
        if let denials = o["denials"], denials != .null {
            guard let rule = denials.object, case .string("grid")? = rule["rule"], let step = integer(rule["interval"]),
                step > 0
            else {
                throw .message(
                    "expected \"denials\" as {\"rule\":\"grid\",\"interval\":MICROSECONDS > 0}, got: \(shown)")
            }
            guard !callbacks.contains(.denied) else {
                throw .message("a denial rule and the denied callback both: expected one of them, got: \(shown)")
            }
            grid = step
        }
        var batches = false
        if let batch = o["batch"], batch != .null {
            guard case .bool(let value) = batch else {
                throw .message("expected \"batch\" as true or false, got: \(shown)")
            }
            batches = value
        }
        return Handshake(
            name: name, version: policyVersion, knob: knob, callbacks: callbacks, grid: grid, batches: batches,
            line: String(decoding: line, as: UTF8.self))
    }

    /// An answer, checked against the request it answers: sequence number `seq`, a time
    /// from `now` to `latest`.
    static func decision(
        _ line: ArraySlice<UInt8>, seq: Int, now: SimTime, latest: SimTime
    ) throws(Failure) -> WakeDecision {
        if let quick = canonical(line), quick.seq == seq {
            switch quick.decision {
            case .request(let at) where at < now || at > latest: break  // the full path says why
            default: return quick.decision
            }
        }
        let o = try object(line)
        guard let got = integer(o["seq"]) else {
            throw .message("an answer without an integer \"seq\": \(excerpt(line))")
        }
        guard got == seq else { throw .message("an answer out of order: seq \(got), expected \(seq)") }
        guard case .string(let kind)? = o["decision"] else {
            throw .message("an answer without a \"decision\": \(excerpt(line))")
        }
        switch kind {
        case "keep": return .keep
        case "cancel": return .cancel
        case "request":
            guard let at = integer(o["at"]) else {
                throw .message("a request without an integer \"at\" (microseconds): \(excerpt(line))")
            }
            guard at >= now else { throw .message("a request at t=\(at) µs, in the past (now t=\(now) µs)") }
            guard at <= latest else {
                throw .message("a request at t=\(at) µs, more than a week beyond the horizon (t=\(latest) µs at most)")
            }
            return .request(at: at)
        default:
            throw .message("an unknown decision '\(kind)': expected keep, request or cancel")
        }
    }
}

// MARK: - Parameters

public struct ExternalParameters: ParameterSet {
    public init() {}

    public var command: [String] = []
    public var timeout = TimeSpan.seconds(10)
}
extension ExternalParameters {
    public static var fields: [ParameterField<Self>] {
        [
            ParameterField(
                name: "command", unit: "list of strings", range: "1 to 256 arguments",
                doc:
                    "the program and its arguments (its own parameters among them), looked up on PATH; started only with --allow-external; docs/protocol.md: needed"
            ) { root, c, path in
                if root.command.count > 256 {
                    c.fail(path, "expected at most 256 arguments, got \(root.command.count)")
                }
            },
            .duration(
                \.timeout, "timeout", in: .seconds(0.001)...(.minutes(60)),
                "the longest wait for one answer before the run stops with an error (the handshake's: this or 30 s, the longer)"
            ),
        ]
    }
}

extension ExternalPolicy { public typealias Parameters = ExternalParameters }
