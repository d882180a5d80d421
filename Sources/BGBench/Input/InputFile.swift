import Foundation

/// bgbench's one way to read an input file: scenario files, opens traces, LSApp logs,
/// bench baselines and report files read back. Reads with POSIX `read`, so a FIFO,
/// `/dev/stdin` or `/dev/null` is read like a file (not refused as "permission denied"),
/// and never more than a documented cap (docs/limits.md): a regular file is refused by its
/// size before it is read, a stream (a FIFO, a /proc file, a device) once one byte beyond
/// the cap has come, a file whose first 4096 bytes are all zero (/dev/zero) and a stream
/// whose first 4096 bytes are not UTF-8 (/dev/urandom) at once.
public enum InputFile {
    /// The largest input of each kind, in bytes (docs/limits.md).
    public struct Limits: Sendable, Equatable {
        /// A scenario is a few kilobytes; 1 MiB leaves room for long per-hour tables.
        public var scenario = 1 << 20
        /// Traces and LSApp logs: 2 GiB (about 60 million lines).
        public var trace = 1 << 31
        /// Report files read back by `check`, `merge`, `plot` and `check --update`.
        public var report = 1 << 31
        /// A `bench --baseline` CSV: a line per workload and thread count, a few kilobytes.
        public var benchBaseline = 1 << 20

        /// The documented caps.
        public init() {}
    }

    /// The caps in force: the documented ones. A test binds smaller ones
    /// (`InputFile.$limits.withValue`) to see a stream of a 2 GiB kind cut at its cap
    /// without filling 2 GiB; nothing else changes them.
    @TaskLocal public static var limits = Limits()

    /// The caps in force by kind (`limits`), as the readers name them.
    public enum Limit {
        public static var scenario: Int { InputFile.limits.scenario }
        public static var trace: Int { InputFile.limits.trace }
        public static var report: Int { InputFile.limits.report }
        public static var benchBaseline: Int { InputFile.limits.benchBaseline }
    }

    /// Why a file could not be read: a short reason, as in "cannot read trace 'x': REASON".
    public struct Failure: Error, Sendable, Equatable {
        public var reason: String
        /// True when the file was read but is larger than the cap, or no text at all (bad
        /// data, exit 65), false when it could not be read at all (no input, exit 66).
        public var tooLarge: Bool
    }

    /// The bytes of `path`, at most `limit` of them (an array: the CSV reader works on it
    /// without a copy, so a trace is in memory once).
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        try read(path) { _ in limit }
    }

    /// The bytes of `path`, at most `limit(head)` of them, where `head` is the file's first
    /// bytes (up to 4096: what `validate` tells a scenario from a trace by). A regular
    /// file is refused by its size before more than its head is read; a stream is read
    /// up to one byte beyond the cap, never more.
    public static func read(_ path: String, limit: ([UInt8]) -> Int) throws(Failure) -> [UInt8] {
        guard !path.isEmpty else { throw Failure(reason: "an empty path", tooLarge: false) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: reason(errno), tooLarge: false) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(reason: reason(errno), tooLarge: false) }
        if info.st_mode & S_IFMT == S_IFDIR { throw Failure(reason: "is a directory", tooLarge: false) }
        let regular = info.st_mode & S_IFMT == S_IFREG
        let headSize = 4096
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        /// Reads at most `count` bytes onto `data`; false at the end of the file.
        func more(_ count: Int) throws(Failure) -> Bool {
            while true {
                let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, min(count, $0.count)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure(reason: reason(errno), tooLarge: false)
                }
                data.append(contentsOf: chunk[0..<n])
                return n > 0
            }
        }
        var going = true
        while going && data.count < headSize { going = try more(headSize - data.count) }
        let cap = max(0, limit(data))
        if regular && Int(info.st_size) > cap {
            throw Failure(reason: tooLarge(Int(info.st_size), cap), tooLarge: true)
        }
        // A device such as /dev/zero is endless and no text: refused by its first bytes.
        if data.count == headSize && !data.contains(where: { $0 != 0 }) {
            throw Failure(
                reason: "not text: its first \(headSize) bytes are zero (a device such as /dev/zero, or a binary file)",
                tooLarge: true)
        }
        // A stream whose first bytes are not UTF-8 (/dev/urandom) is no text either: refused
        // at once, not after its cap (a code point cut at the end of the head is let be; a
        // UTF-16 or UTF-32 head is left to the reader, which names its encoding).
        if !regular && data.count == headSize && CSVReader.otherEncoding(data) == nil,
            let bad = CSVReader.firstInvalidUTF8(data[...]), bad < headSize - 3
        {
            throw Failure(
                reason:
                    "not text: its first \(headSize) bytes are not UTF-8 (a device such as /dev/urandom, or a binary stream)",
                tooLarge: true)
        }
        if regular { data.reserveCapacity(min(Int(info.st_size), cap) + 1) }
        // One byte beyond the cap tells a stream that is too long from one that ends there.
        while going && data.count <= cap { going = try more(cap + 1 - data.count) }
        guard data.count <= cap else { throw Failure(reason: tooLarge(cap, cap, atLeast: true), tooLarge: true) }
        return data
    }

    /// "1500000000 bytes: expected at most 1048576 (1 MiB; docs/limits.md)", or for a
    /// stream cut at its cap "more than 1048576 bytes: ...".
    static func tooLarge(_ size: Int, _ limit: Int, atLeast: Bool = false) -> String {
        "\(atLeast ? "more than " : "")\(size) bytes: expected at most \(limit) (\(binary(limit)); docs/limits.md)"
    }

    /// A cap in the largest binary unit that divides it: "1 MiB", "2 GiB", "1000 bytes".
    static func binary(_ bytes: Int) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes > 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift) \(unit)"
        }
        return "\(bytes) bytes"
    }

    /// The OS's reason, short: "no such file", "permission denied".
    static func reason(_ code: Int32) -> String {
        code == ENOENT ? "no such file" : String(cString: strerror(code)).lowercased()
    }
}

extension InputFile {
    /// `read`, with a failure as the loaders report it: "cannot read KIND 'FILE': REASON"
    /// without a place when the file cannot be read (exit 66), or at the file when it is
    /// larger than the cap (exit 65).
    public static func read(_ path: String, limit: Int, kind: String?) throws(ScenarioError) -> [UInt8] {
        try read(path, limit: { _ in limit }, kind: kind)
    }

    /// `read(_:limit:kind:)` with the cap chosen by the file's first bytes (`validate`).
    /// `kind` is read after the file, so it may name what the first bytes showed.
    public static func read(_ path: String, limit: ([UInt8]) -> Int, kind: @autoclosure () -> String?)
        throws(ScenarioError) -> [UInt8]
    {
        do {
            return try read(path, limit: limit)
        } catch {
            let kind = kind()
            throw ScenarioError(problems: [
                error.tooLarge
                    ? .init(location: .file(path), path: "", message: "the \(kind ?? "input") file is \(error.reason)")
                    : .init(
                        location: .none, path: "",
                        message: "cannot read \(kind.map { $0 + " " } ?? "")'\(path)': \(error.reason)")
            ])
        }
    }

    /// The line and column (columns count characters) of the first byte of `data` that is
    /// not well-formed UTF-8, or nil.
    package static func firstInvalidUTF8(_ bytes: [UInt8]) -> SourcePosition? {
        guard let bad = CSVReader.firstInvalidUTF8(bytes[...]) else { return nil }
        let lineStart = bytes[..<bad].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let line = 1 + bytes[..<bad].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        return SourcePosition(
            line: line, column: 1 + bytes[lineStart..<bad].reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) })
    }
}
