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
/// | payload (16). The sequence is unique, so kind and payload never decide the order; the
/// whole queue is a flat array of integers and comparisons are single integer compares.
/// Cancellation is by the caller: an event whose payload (a generation) is stale is
/// discarded when popped rather than searched for.
public struct EventQueue<Kind: EventKind> {
    @usableFromInline var heap: ContiguousArray<UInt128> = []
    @usableFromInline var sequence: UInt32 = 0

    public init() { heap.reserveCapacity(32) }

    /// The number of events waiting.
    @inlinable public var count: Int { heap.count }
    @inlinable public var isEmpty: Bool { heap.isEmpty }

    /// Empties the queue and restarts the sequence, keeping the storage (no allocation
    /// when one queue serves device after device).
    @inlinable public mutating func reset() {
        heap.removeAll(keepingCapacity: true)
        sequence = 0
    }

    /// Adds an event.
    /// - Precondition: time ≥ 0, and fewer than 2³² events inserted since the last reset.
    /// - Complexity: O(log(count)) comparisons.
    @inlinable public mutating func push(_ event: Event<Kind>) {
        precondition(event.time >= 0, "event time must not be negative")
        let key = UInt128(UInt64(event.time)) << 64
            | UInt128(event.kind.priority) << 56
            | UInt128(sequence) << 24
            | UInt128(event.kind.code) << 16
            | UInt128(event.payload)
        sequence &+= 1
        precondition(sequence != 0, "event sequence overflow")
        heap.append(key)
        siftUp(heap.count - 1)
    }

    /// The earliest event, without removing it.
    /// - Complexity: O(1).
    @inlinable public var first: Event<Kind>? {
        heap.isEmpty ? nil : Self.decode(heap[0])
    }

    /// Removes and returns the earliest event.
    /// - Complexity: O(log(count)) comparisons.
    @inlinable public mutating func pop() -> Event<Kind>? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return Self.decode(top)
    }

    @inlinable static func decode(_ key: UInt128) -> Event<Kind> {
        Event(time: SimTime(UInt64(truncatingIfNeeded: key >> 64)),
              kind: Kind(code: UInt8(truncatingIfNeeded: key >> 16)),
              payload: UInt16(truncatingIfNeeded: key))
    }

    @inlinable mutating func siftUp(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { h in
            var i = start
            let key = h[i]
            while i > 0 {
                let parent = (i - 1) >> 1
                if h[parent] <= key { break }
                h[i] = h[parent]
                i = parent
            }
            h[i] = key
        }
    }

    @inlinable mutating func siftDown(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { h in
            let n = h.count
            var i = start
            let key = h[i]
            while true {
                var child = 2 * i + 1
                if child >= n { break }
                if child + 1 < n && h[child + 1] < h[child] { child += 1 }
                if key <= h[child] { break }
                h[i] = h[child]
                i = child
            }
            h[i] = key
        }
    }

    #if BGBENCH_INVARIANTS
    /// Checks the heap property (debug builds with -D BGBENCH_INVARIANTS).
    public func checkInvariants() {
        for i in 1..<max(1, heap.count) { precondition(heap[(i - 1) >> 1] <= heap[i]) }
    }
    #endif
}
