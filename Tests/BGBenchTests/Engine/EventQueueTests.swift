import Testing
@testable import BGBench

private enum TestKind: UInt8, EventKind {
    case a = 0, b = 1, c = 2
    var code: UInt8 { rawValue }
    var priority: UInt8 { rawValue }
    init(code: UInt8) { self = TestKind(rawValue: code)! }
}

@Suite struct EventQueueTests {
    /// The queue against a sorted-array oracle: many seeds, many ties (few distinct times),
    /// interleaved pushes and pops. The oracle orders by (time, priority, insertion index).
    @Test(arguments: 0..<200)
    func matchesSortedArrayOracle(seed: Int) {
        var rng = RandomStream(seed: UInt64(seed), device: 0, purpose: .policy)
        let queue = EventQueue<TestKind>(capacity: 4)
        var oracle: [(time: SimTime, priority: UInt8, seq: Int, payload: UInt16)] = []
        var inserted = 0
        let distinctTimes = 1 + rng.index(below: 20)
        for _ in 0..<300 {
            if rng.bernoulli(0.6) || oracle.isEmpty {
                let time = SimTime(rng.index(below: distinctTimes))
                let kind = TestKind(rawValue: UInt8(rng.index(below: 3)))!
                let payload = UInt16(inserted)
                queue.push(Event(time: time, kind: kind, payload: payload))
                oracle.append((time, kind.priority, inserted, payload))
                inserted += 1
            } else {
                oracle.sort { ($0.time, $0.priority, $0.seq) < ($1.time, $1.priority, $1.seq) }
                let expected = oracle.removeFirst()
                let got = queue.pop()
                #expect(got?.time == expected.time)
                #expect(got?.kind.priority == expected.priority)
                #expect(got?.payload == expected.payload)
            }
            #expect(queue.count == oracle.count)
        }
        oracle.sort { ($0.time, $0.priority, $0.seq) < ($1.time, $1.priority, $1.seq) }
        for expected in oracle {
            #expect(queue.pop()?.payload == expected.payload)
        }
        #expect(queue.pop() == nil)
    }

    @Test func tiesRunInPriorityThenInsertionOrder() {
        let queue = EventQueue<TestKind>(capacity: 4)
        queue.push(Event(time: 5, kind: .c, payload: 1))
        queue.push(Event(time: 5, kind: .a, payload: 2))
        queue.push(Event(time: 5, kind: .c, payload: 3))
        queue.push(Event(time: 4, kind: .c, payload: 4))
        queue.push(Event(time: 5, kind: .a, payload: 5))
        #expect((0..<5).map { _ in queue.pop()!.payload } == [4, 2, 5, 1, 3])
    }

    @Test func resetRestartsAndKeepsLargeTimes() {
        let queue = EventQueue<TestKind>(capacity: 4)
        queue.push(Event(time: 400 * Clock.day, kind: .b, payload: 7))
        queue.reset()
        #expect(queue.isEmpty)
        queue.push(Event(time: 3650 * Clock.day + 1, kind: .b, payload: 9))
        #expect(queue.first == Event(time: 3650 * Clock.day + 1, kind: .b, payload: 9))
    }
}
