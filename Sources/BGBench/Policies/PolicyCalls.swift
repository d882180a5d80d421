/// How the device loop calls a policy. The loop is compiled once per platform, not once per
/// policy and platform (issue 23: the 48 copies were most of the release build), so it
/// calls the policy through a table built once per policy type, where the type is known:
/// each entry is the policy's own callback compiled for it, on a box the device owns. One
/// indirect call per callback, no copy-on-write check (a boxed `any WakePolicy` paid one
/// at every mutating call) and no exclusivity check (the box is the device's alone).
struct PolicyCalls: Sendable {
    let name: String
    let isClairvoyant: Bool
    let knowledge: PolicyKnowledge
    let observesPublications: Bool
    let callbacks: PolicyCallbacks

    let make: @Sendable (PolicyContext) -> AnyObject
    let start: @Sendable (AnyObject, DeviceView) -> WakeDecision
    let opened: @Sendable (AnyObject, DeviceView) -> WakeDecision
    let denied: @Sendable (AnyObject, DenialReason, SimTime?, DeviceView) -> WakeDecision
    let deniedAhead: @Sendable (AnyObject, SimTime) -> SimTime?
    let runStarted: @Sendable (AnyObject, DeviceView) -> WakeDecision
    let runEnded: @Sendable (AnyObject, RunStatus, DeviceView) -> WakeDecision
    let stateChanged: @Sendable (AnyObject, DeviceView) -> WakeDecision
    let midnight: @Sendable (AnyObject, DeviceView) -> WakeDecision
    let published: @Sendable (AnyObject, DeviceView) -> PushDecision

    init<P: WakePolicy>(_: P.Type) {
        name = P.name
        isClairvoyant = P.isClairvoyant
        knowledge = P.knowledge
        observesPublications = P.observesPublications
        callbacks = P.callbacks
        make = { PolicyBox<P>(P($0)) }
        start = { PolicyBox<P>.of($0).policy.start($1) }
        opened = { PolicyBox<P>.of($0).policy.opened($1) }
        denied = { PolicyBox<P>.of($0).policy.denied($1, retryAt: $2, $3) }
        deniedAhead = { PolicyBox<P>.of($0).policy.deniedAhead(at: $1) }
        runStarted = { PolicyBox<P>.of($0).policy.runStarted($1) }
        runEnded = { PolicyBox<P>.of($0).policy.runEnded($1, $2) }
        stateChanged = { PolicyBox<P>.of($0).policy.stateChanged($1) }
        midnight = { PolicyBox<P>.of($0).policy.midnight($1) }
        published = { PolicyBox<P>.of($0).policy.published($1) }
    }
}

/// One device's policy value, owned by that device's simulation alone.
final class PolicyBox<P: WakePolicy> {
    @exclusivity(unchecked) var policy: P
    init(_ policy: P) { self.policy = policy }
    /// The box behind a device's policy reference (made by this type's `PolicyCalls.make`).
    @inline(__always)
    static func of(_ object: AnyObject) -> PolicyBox<P> { unsafeDowncast(object, to: PolicyBox<P>.self) }
}

/// A device's policy: its box and its type's calls.
struct DevicePolicy {
    let calls: PolicyCalls
    let box: AnyObject

    init(_ calls: PolicyCalls, _ context: PolicyContext) {
        self.calls = calls
        box = calls.make(context)
    }

    @inline(__always) func start(_ view: DeviceView) -> WakeDecision { calls.start(box, view) }
    @inline(__always) func opened(_ view: DeviceView) -> WakeDecision { calls.opened(box, view) }
    @inline(__always) func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        calls.denied(box, reason, retryAt, view)
    }
    @inline(__always) func deniedAhead(at t: SimTime) -> SimTime? { calls.deniedAhead(box, t) }
    @inline(__always) func runStarted(_ view: DeviceView) -> WakeDecision { calls.runStarted(box, view) }
    @inline(__always) func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        calls.runEnded(box, status, view)
    }
    @inline(__always) func stateChanged(_ view: DeviceView) -> WakeDecision { calls.stateChanged(box, view) }
    @inline(__always) func midnight(_ view: DeviceView) -> WakeDecision { calls.midnight(box, view) }
    @inline(__always) func published(_ view: DeviceView) -> PushDecision { calls.published(box, view) }
}
