import Dispatch
import Foundation
import Synchronization

/// Batching (docs/protocol.md, "Batching"): the devices of a block simulated side by side
/// against one process, their decision messages sent in frames. Each device runs on a
/// thread of its own and pauses at a decision (``ask(_:)`` waits for its answer); when
/// every device of the block is paused or finished, the block's thread (``run``) sends
/// the waiting messages as one frame, in device order, reads the answers and resumes the
/// devices. A device's simulation is the one it has unbatched, so a policy whose answers
/// depend only on its device's messages gives the same reports batched or not, on any
/// thread count.
///
/// The engine is untouched: a paused device is a blocked thread, not a saved event loop.
/// Threads cost a few microseconds a switch; a round trip through a pipe and an
/// interpreter costs tens (Benchmarks/README.md, "External policies").
final class ExternalBatch: @unchecked Sendable {
    /// A device's decision message, waiting for its frame.
    struct Ask {
        let device: Int
        let type: String
        let line: String
        let seq: Int
        let now: SimTime
        let latest: SimTime
    }

    private struct State: ~Copyable {
        var asks: [Ask?]
        /// Each device's answer: nil until the frame is answered; `.some(nil)` once the run
        /// has failed (the device keeps its request and finishes).
        var answers: [WakeDecision??]
        var paused = 0
        var finished = 0
        /// Devices finished since the last frame (the next frame's `ended`).
        var ended: [Int] = []
    }

    let pool: ExternalPool
    /// The block's process; nil once the run has failed.
    private var child: ExternalChild?
    private let count: Int
    private let state: Mutex<State>
    /// One per device: its answer is there.
    private let resume: [DispatchSemaphore]
    /// Every device is paused or finished.
    private let ready = DispatchSemaphore(value: 0)

    private init(pool: ExternalPool, count: Int) {
        self.pool = pool
        self.count = count
        child = pool.checkout()
        state = Mutex(State(asks: Array(repeating: nil, count: count), answers: Array(repeating: nil, count: count)))
        resume = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Simulates `devices` side by side, `simulate` running each on a thread of its own with
    /// its slot (the device's `PolicyContext.prepared`), and returns their results in
    /// device order once every one has finished.
    static func run<Result>(
        _ devices: Range<Int>, pool: ExternalPool, simulate: @escaping @Sendable (Int, ExternalBatchSlot) -> Result
    ) -> [Result] {
        let batch = ExternalBatch(pool: pool, count: devices.count)
        let results = Slots(UnsafeMutableBufferPointer<Result?>.allocate(capacity: devices.count))
        results.buffer.initialize(repeating: nil)
        defer { results.buffer.deinitialize(); results.buffer.deallocate() }
        for (i, device) in devices.enumerated() {
            let thread = Thread {
                results.buffer[i] = simulate(device, ExternalBatchSlot(batch: batch, index: i))
                batch.finished(i, device: device)
            }
            thread.start()
        }
        batch.serve()
        return results.buffer.map { $0! }
    }

    /// The block's thread: a frame each time every device is paused or finished, until
    /// every device has finished.
    private func serve() {
        while true {
            ready.wait()
            let (asks, ended): ([(Int, Ask)], [Int]) = state.withLock { s in
                let waiting = s.asks.indices.compactMap { i in s.asks[i].map { (i, $0) } }
                for (i, _) in waiting { s.asks[i] = nil }
                s.paused = 0
                defer { s.ended.removeAll() }
                return (waiting, s.ended)
            }
            child?.ended += ended
            if asks.isEmpty { break }  // every device finished
            let answers = answer(asks.map(\.1))
            state.withLock { s in for ((i, _), a) in zip(asks, answers) { s.answers[i] = .some(a) } }
            for (i, _) in asks { resume[i].signal() }
        }
        if let child, !pool.failed { pool.checkin(child) } else { child?.terminate() }
    }

    /// One frame's answers, in order; nil for each once the run has failed. The message
    /// whose answer is missing or breaks the protocol names the failure (the first one's
    /// device when the frame could not be sent), so a failure reads the same on every run.
    private func answer(_ asks: [Ask]) -> [WakeDecision?] {
        guard let child, !pool.failed else { return asks.map { _ in nil } }
        var decisions: [WakeDecision?] = []
        decisions.reserveCapacity(asks.count)
        do throws(ExternalProtocol.Failure) {
            let start = DispatchTime.now().uptimeNanoseconds
            guard child.send(child.frame(asks.map(\.line))) else { throw .message(child.exitText()) }
            for a in asks {
                decisions.append(
                    try ExternalProtocol.decision(child.receive(), seq: a.seq, now: a.now, latest: a.latest))
            }
            child.count(messages: asks.count, since: start)
            return decisions
        } catch {
            guard case .message(let problem) = error else { return asks.map { _ in nil } }
            let a = asks[min(decisions.count, asks.count - 1)]
            pool.fail(.partner(device: a.device, time: a.now, request: a.type, problem: problem))
            self.child = nil
            child.terminate()
            return asks.map { _ in nil }
        }
    }

    /// Device `index` pauses at a decision until its frame is answered: the decision, or
    /// nil once the run has failed.
    fileprivate func ask(_ index: Int, _ ask: Ask) -> WakeDecision? {
        let last = state.withLock { s in
            s.asks[index] = ask
            s.paused += 1
            return s.paused + s.finished == count
        }
        if last { ready.signal() }
        resume[index].wait()
        return state.withLock { s in
            let answer = s.answers[index]!
            s.answers[index] = nil
            return answer
        }
    }

    /// Device `index` (the fleet's `device`) has finished.
    private func finished(_ index: Int, device: Int) {
        let last = state.withLock { s in
            s.finished += 1
            s.ended.append(device)
            return s.paused + s.finished == count
        }
        if last { ready.signal() }
    }
}

/// What a batched device's policy holds in place of a process of its own: its place in
/// the block's ``ExternalBatch`` (its `PolicyContext.prepared`).
struct ExternalBatchSlot: Sendable {
    let batch: ExternalBatch
    let index: Int

    /// Sends a decision message in the block's next frame and waits for its answer (nil
    /// once the run has failed).
    func ask(_ ask: ExternalBatch.Ask) -> WakeDecision? { batch.ask(index, ask) }
}
