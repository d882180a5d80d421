import Foundation
import Testing
@testable import BGBench
import BGBenchTestSupport

/// A report file given as a FIFO (`--junit`, `--csv`; issue 25): written into once a process
/// reads it, refused with a one-line reason when none does, never waited on forever.
@Suite struct StreamOutputTests {
    /// Long enough for a reader started a little later, short enough for a test.
    static let wait: Duration = .milliseconds(600)

    @Test func aFIFOWithoutAReaderFailsAfterTheWait() throws {
        let folder = freshFolder("fifo-no-reader")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/report.xml"
        #expect(mkfifo(fifo, 0o600) == 0)
        let started = ContinuousClock.now
        #expect(
            throws: ReportError.cannotWrite(
                fifo, reason: "a FIFO that no process opened for reading within 0.6 seconds")
        ) {
            _ = try ReportWriter.openStream(fifo, wait: Self.wait)
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= Self.wait && waited < .seconds(30))
    }

    @Test func aReaderThatComesLaterGetsEveryByte() throws {
        let folder = freshFolder("fifo-late-reader")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/report.csv"
        #expect(mkfifo(fifo, 0o600) == 0)
        // 1 MiB: more than a pipe holds, so the writes must block (not fail with EAGAIN)
        // while the reader drains them.
        let text = String(repeating: "0123456789abcde\n", count: 65_536)
        let received = Received()
        let reader = Thread {
            usleep(200_000)
            let fd = open(fifo, O_RDONLY)
            var data = Data(), buffer = [UInt8](repeating: 0, count: 65_536)
            while fd >= 0 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                data.append(contentsOf: buffer[..<n])
            }
            if fd >= 0 { close(fd) }
            received.set(data)
        }
        reader.start()
        let fd = try ReportWriter.openStream(fifo, wait: .seconds(20))
        #expect(ReportWriter.writeAll(fd, Array(text.utf8)) == nil)
        close(fd)
        while received.value == nil { usleep(10_000) }
        #expect(received.value == Data(text.utf8))
    }
}

private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    var value: Data? { lock.lock(); defer { lock.unlock() }; return data }
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
}
