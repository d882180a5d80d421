import Foundation

/// bgbench's one way to read an input file: scenario files, opens traces, LSApp logs and
/// report files read back. Reads with POSIX `read`, so a FIFO, `/dev/stdin` or
/// `/dev/null` is read like a file (not refused as "permission denied"), and stops at a
/// documented size cap before memory grows (docs/limits.md).
public enum InputFile {
    /// The largest input of each kind, in bytes (docs/limits.md).
    public enum Limit {
        /// A scenario is a few kilobytes; 1 MiB leaves room for long per-hour tables.
        public static let scenario = 1 << 20
        /// Traces and LSApp logs: 2 GiB (about 60 million lines).
        public static let trace = 1 << 31
        /// Report files read back by `check` and `bench --baseline`.
        public static let report = 1 << 31
    }

    /// Why a file could not be read: a short reason, as in "cannot read trace 'x': REASON".
    public struct Failure: Error, Sendable, Equatable {
        public var reason: String
        /// True when the file was read but is larger than the cap (bad data, exit 65),
        /// false when it could not be read at all (no input, exit 66).
        public var tooLarge: Bool
    }

    /// The bytes of `path`, at most `limit` of them (an array: the CSV reader works on it
    /// without a copy, so a trace is in memory once).
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        guard !path.isEmpty else { throw Failure(reason: "an empty path", tooLarge: false) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: reason(errno), tooLarge: false) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(reason: reason(errno), tooLarge: false) }
        if info.st_mode & S_IFMT == S_IFDIR { throw Failure(reason: "is a directory", tooLarge: false) }
        if info.st_mode & S_IFMT == S_IFREG && Int(info.st_size) > limit {
            throw Failure(reason: tooLarge(Int(info.st_size), limit), tooLarge: true)
        }
        var data: [UInt8] = []
        if info.st_mode & S_IFMT == S_IFREG { data.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: reason(errno), tooLarge: false)
            }
            if n == 0 { return data }
            guard data.count + n <= limit else {
                throw Failure(reason: tooLarge(data.count + n, limit, atLeast: true), tooLarge: true)
            }
            data.append(contentsOf: chunk[0..<n])
        }
    }

    static func tooLarge(_ size: Int, _ limit: Int, atLeast: Bool = false) -> String {
        "\(atLeast ? "more than " : "")\(size) bytes: expected at most \(limit) (\(limit >> 20) MiB; docs/limits.md)"
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
        do {
            return try read(path, limit: limit)
        } catch {
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
