import Dispatch
import Synchronization

/// `transform` of every element, `threads` at a time; the first error thrown (in element
/// order) is rethrown.
package func concurrentMap<T: Sendable, R: Sendable>(_ items: [T], threads: Int, _ transform: @Sendable (T) throws -> R)
    throws -> [R]
{
    let results = Slots(UnsafeMutableBufferPointer<Result<R, any Error>?>.allocate(capacity: items.count))
    results.buffer.initialize(repeating: nil)
    defer { results.buffer.deinitialize(); results.buffer.deallocate() }
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: max(1, min(threads, items.count))) { _ in
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            if i >= items.count { break }
            results.buffer[i] = Result { try transform(items[i]) }
        }
    }
    return try results.buffer.map { try $0!.get() }
}
