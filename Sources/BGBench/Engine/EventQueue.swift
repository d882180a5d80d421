/// The kinds of event a simulation schedules. Each kind carries its priority: events at
/// the same time run in priority order (lower first), then in insertion order.
public protocol EventKind: Equatable {
    /// A compact code, 0...255, stored in the queue's key.
    var code: UInt8 { get }
    /// The tie-break between events at the same time: lower runs first.
    var priority: UInt8 { get }
    init(code: UInt8)
}

/// A scheduled event: when, what, and a small payload (a generation number, an index).
public struct Event<Kind: EventKind>: Equatable {
    public var time: SimTime
    public var kind: Kind
    public var payload: UInt16
    @inlinable public init(time: SimTime, kind: Kind, payload: UInt16 = 0) {
        self.time = time; self.kind = kind; self.payload = payload
    }
}

/// A min-priority queue of events ordered by (time, priority, insertion sequence), so that
/// events at the same time always run in the same order and a seed gives the same bytes
/// (the key order of SimPy and nexosim).
///
/// Each event is one 128-bit key: time (64 bits) | priority (8) | sequence (32) | kind (8)
/// | payload (16). The sequence is unique, so kind and payload never decide the order, and
/// every comparison is one integer compare. Cancellation is by the caller: an event whose
/// payload (a generation) is stale is discarded when popped rather than searched for.
///
/// The keys are kept sorted, latest first, in one flat buffer: the earliest event is the
/// last key, so a pop is a read and a decrement, and a push moves only the keys earlier
/// than the new one. A device has a handful of events pending (the next open, midnight,
/// a request, a run's end, phone use and charging), and a new event mostly lands near the
/// front of time's order, so this beats a binary heap's sifts (R1: 11 % fewer
/// instructions for the whole simulation, measured with callgrind); a push is O(count)
/// in the worst case, which a device's few pending events keep small.
///
/// A class with its own buffer: one queue serves device after device on a thread, with
/// no copy-on-write checks or reallocation in the hot loop.
///
/// Its fields opt out of dynamic exclusivity checking (`@exclusivity(unchecked)`): each
/// access would otherwise call the runtime (in R1 three quarters of a build's extra
/// instructions without -Ounchecked). No access can overlap another: a queue belongs to one
/// worker's thread, and no method passes a field `inout` or calls out while modifying one.
public final class EventQueue<Kind: EventKind> {
    /// The keys, descending: `keys[size - 1]` is the earliest.
    @exclusivity(unchecked) @usableFromInline var keys: UnsafeMutablePointer<UInt128>
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    @exclusivity(unchecked) @usableFromInline var size = 0
    @exclusivity(unchecked) @usableFromInline var sequence: UInt32 = 0

    public init(capacity: Int = 64) {
        self.capacity = max(4, capacity)
        keys = .allocate(capacity: self.capacity)
    }

    deinit { keys.deallocate() }

    /// The number of events waiting.
    @inlinable public var count: Int { size }
    @inlinable public var isEmpty: Bool { size == 0 }

    /// Empties the queue and restarts the sequence, keeping the storage.
    @inlinable public func reset() {
        size = 0
        sequence = 0
    }

    /// Adds an event.
    /// - Precondition: time ≥ 0, and fewer than 2³² events inserted since the last reset.
    /// - Complexity: O(number of pending events earlier than it); amortised O(1) growth.
    @inlinable @inline(__always) public func push(_ event: Event<Kind>) {
        precondition(event.time >= 0, "event time must not be negative")
        // The low half in steps with its type spelled out: as one expression it took the
        // type checker two seconds of every build (issue 23).
        var low: UInt64 = UInt64(event.kind.priority) << 56
        low |= UInt64(sequence) << 24
        low |= UInt64(event.kind.code) << 16
        low |= UInt64(event.payload)
        let key = UInt128(UInt64(bitPattern: event.time)) << 64 | UInt128(low)  // time ≥ 0: checked above
        sequence &+= 1
        precondition(sequence != 0, "event sequence overflow")
        if size == capacity { grow() }
        // Move the earlier keys one place back until the key's place is found. Wrapping
        // arithmetic: 0 < i ≤ size < capacity, and size + 1 ≤ capacity after the growth.
        // The pointer in a local: read from the object at every step, it is reloaded after
        // each store (which the optimiser cannot prove leaves the field alone).
        let keys = self.keys
        var i = size
        while i > 0 && keys[i &- 1] < key {
            keys[i] = keys[i &- 1]
            i &-= 1
        }
        keys[i] = key
        size &+= 1
    }

    @usableFromInline func grow() {
        let bigger = UnsafeMutablePointer<UInt128>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: keys, count: size)
        keys.deallocate()
        keys = bigger
        capacity *= 2
    }

    /// The earliest event, without removing it.
    /// - Complexity: O(1).
    @inlinable public var first: Event<Kind>? {
        size == 0 ? nil : Self.decode(keys[size - 1])
    }

    /// Whether the earliest event comes before an event at `time` with `priority` that
    /// is kept outside the queue (an event kept aside, of a priority no queued event has,
    /// ordered as if it were queued): false when the queue is empty.
    /// - Complexity: O(1).
    /// - Precondition: time ≥ 0 (a time of the simulation; not checked).
    @inlinable @inline(__always) public func firstPrecedes(time: SimTime, priority: UInt8) -> Bool {
        size > 0 && keys[size &- 1] < (UInt128(UInt64(bitPattern: time)) << 64 | UInt128(UInt64(priority) << 56))
    }

    /// Removes and returns the earliest event.
    /// - Complexity: O(1).
    @inlinable @inline(__always) public func pop() -> Event<Kind>? {
        guard size > 0 else { return nil }
        size &-= 1
        return Self.decode(keys[size])
    }

    /// Puts back the event `pop()` just returned, in its place (nothing pushed since): for
    /// a caller that must handle something earlier first.
    @inlinable @inline(__always) public func unpop() { size &+= 1 }  // back to the size before the pop

    @inlinable static func decode(_ key: UInt128) -> Event<Kind> {
        let low = UInt64(truncatingIfNeeded: key)
        return Event(
            time: SimTime(truncatingIfNeeded: key >> 64),  // below 2⁶³: pushed times are ≥ 0
            kind: Kind(code: UInt8(truncatingIfNeeded: low >> 16)),
            payload: UInt16(truncatingIfNeeded: low))
    }

    #if BGBENCH_INVARIANTS
        /// Checks that the keys are sorted, latest first (builds with -D BGBENCH_INVARIANTS).
        public func checkInvariants() {
            for i in 1..<max(1, size) { precondition(keys[i - 1] > keys[i]) }
        }
    #endif
}
