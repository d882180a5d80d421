import Foundation

/// bgbench's one reader of delimited text: opens traces (CSV), LSApp logs (tab-separated)
/// and report files read back by `bgbench check` and `bench --baseline` (``CSVTable``).
///
/// Fields are separated by the dialect's separator; a field in double quotes may hold the
/// separator and doubled quotes (and, in the ``Dialect/reportTable`` dialect, line
/// breaks). Lines end with LF, CRLF or CR; a UTF-8 byte order mark is skipped; empty lines
/// are skipped. Reads bytes, so a big trace is not copied into strings.
package struct CSVReader {
    /// How a file writes its fields.
    package struct Dialect: Sendable {
        var separator: UInt8
        /// A quoted field may span lines (RFC 4180). Else a quote must close on its line.
        var quotedLineBreaks: Bool
        /// A quote inside an unquoted field is an error (RFC 4180). Else it is text.
        var strictQuotes: Bool

        /// The report files bgbench writes (``CSVWriter``), read back per RFC 4180.
        static let reportTable = Dialect(separator: UInt8(ascii: ","), quotedLineBreaks: true, strictQuotes: true)
        /// Hand-made or exported input, one record a line: opens traces.
        static let commaSeparatedLines = Dialect(
            separator: UInt8(ascii: ","), quotedLineBreaks: false, strictQuotes: false)
        /// LSApp logs.
        package static let tabSeparatedLines = Dialect(
            separator: UInt8(ascii: "\t"), quotedLineBreaks: false, strictQuotes: false)
    }

    package struct Field {
        var bytes: ArraySlice<UInt8>
        /// 1-based byte column of the field's first character on its line (ASCII files:
        /// the column).
        package var column: Int
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// Without surrounding spaces and tabs (on bytes: Foundation's trimming costs
        /// more than the rest of reading a row).
        package var trimmed: String {
            var b = bytes[...]
            while let c = b.first, c == 0x20 || c == 0x09 { b.removeFirst() }
            while let c = b.last, c == 0x20 || c == 0x09 { b.removeLast() }
            return String(decoding: b, as: UTF8.self)
        }
    }

    /// A record that cannot be read: the line and column of the problem.
    struct Failure: Error {
        var line: Int
        var column: Int
        var message: String
    }

    let bytes: [UInt8]
    let dialect: Dialect

    package init(_ data: Data, dialect: Dialect) {
        self.init(bytes: [UInt8](data), dialect: dialect)
    }

    init(bytes: [UInt8], dialect: Dialect) {
        var bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        self.bytes = bytes
        self.dialect = dialect
    }

    private static let quote = UInt8(ascii: "\""), lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

    @inline(__always) private func isLineEnd(_ i: Int) -> Bool {
        bytes[i] == Self.lineFeed || bytes[i] == Self.carriageReturn
    }

    /// The index after the line break at i (CRLF is one break).
    @inline(__always) private func afterLineEnd(_ i: Int) -> Int {
        bytes[i] == Self.carriageReturn && i + 1 < bytes.count && bytes[i + 1] == Self.lineFeed ? i + 2 : i + 1
    }

    /// Calls `record(line, fields)` for every record that is not an empty line (`line`: the
    /// line it starts on), and `failure` for one that cannot be read; reading goes on at
    /// the next line.
    func forEachRecord(_ record: (Int, [Field]) -> Void, failure: (Failure) -> Void) {
        if let message = Self.otherEncodingMessage(bytes) {
            failure(Failure(line: 1, column: 1, message: message))
            return
        }
        let count = bytes.count, separator = dialect.separator
        var i = 0, line = 1
        records: while i < count {
            if isLineEnd(i) { i = afterLineEnd(i); line += 1; continue }  // an empty line
            let recordLine = line
            var lineStart = i
            var fields: [Field] = []
            // Skips to the end of the line after a failure.
            func fail(_ column: Int, _ message: String, onLine: Int) {
                failure(Failure(line: onLine, column: column, message: message))
                while i < count && !isLineEnd(i) { i += 1 }
                if i < count { i = afterLineEnd(i) }
                line += 1
            }
            while true {
                let column = i - lineStart + 1
                if i < count && bytes[i] == Self.quote {
                    var text: [UInt8] = []
                    var j = i + 1
                    var closed = false
                    while j < count {
                        let c = bytes[j]
                        if c == Self.quote {
                            if j + 1 < count && bytes[j + 1] == Self.quote { text.append(c); j += 2; continue }
                            closed = true; j += 1; break
                        }
                        if c == Self.lineFeed || c == Self.carriageReturn {
                            guard dialect.quotedLineBreaks else { break }
                            let next = afterLineEnd(j)
                            text.append(contentsOf: bytes[j..<next])
                            j = next; line += 1; lineStart = j
                            continue
                        }
                        if let problem = Self.unreadable(c) ?? byteOrderMark(at: j) {
                            i = j; fail(j - lineStart + 1, problem, onLine: line); continue records
                        }
                        text.append(c); j += 1
                    }
                    guard closed else {
                        i = j
                        fail(
                            column,
                            dialect.quotedLineBreaks
                                ? "a quoted field is not closed" : "a quoted field is not closed on its line",
                            onLine: recordLine)
                        continue records
                    }
                    guard j == count || bytes[j] == separator || isLineEnd(j) else {
                        i = j
                        fail(j - lineStart + 1, "text after a closing quote", onLine: line)
                        continue records
                    }
                    if let bad = Self.firstInvalidUTF8(text[...]) {
                        i = j;
                        fail(
                            column,
                            "invalid UTF-8 (byte 0x\(Self.hex(text[bad]))) in a quoted field: expected UTF-8 text",
                            onLine: line)
                        continue records
                    }
                    fields.append(Field(bytes: text[...], column: column))
                    i = j
                } else {
                    var j = i
                    while j < count && bytes[j] != separator && !isLineEnd(j) {
                        if dialect.strictQuotes && bytes[j] == Self.quote {
                            i = j
                            fail(j - lineStart + 1, "a quote inside an unquoted field", onLine: line)
                            continue records
                        }
                        if let problem = Self.unreadable(bytes[j]) ?? byteOrderMark(at: j) {
                            i = j; fail(j - lineStart + 1, problem, onLine: line); continue records
                        }
                        j += 1
                    }
                    if let bad = Self.firstInvalidUTF8(bytes[i..<j]) {
                        i = bad;
                        fail(
                            bad - lineStart + 1, "invalid UTF-8 (byte 0x\(Self.hex(bytes[bad]))): expected UTF-8 text",
                            onLine: line)
                        continue records
                    }
                    fields.append(Field(bytes: bytes[i..<j], column: column))
                    i = j
                }
                if i < count && bytes[i] == separator { i += 1; continue }
                break
            }
            if i < count { i = afterLineEnd(i) }
            line += 1
            record(recordLine, fields)
        }
    }

    /// A byte order mark (U+FEFF, EF BB BF) at `i`, anywhere but the file's first bytes
    /// (which `init` drops): two files joined, or a BOM written twice. Refused, or it would
    /// make `\u{FEFF}u1` another device than `u1`; the message names it, not the invisible
    /// character. One comparison per byte: only a 0xEF byte looks further.
    @inline(__always) private func byteOrderMark(at i: Int) -> String? {
        guard bytes[i] == 0xEF, i + 2 < bytes.count, bytes[i + 1] == 0xBB, bytes[i + 2] == 0xBF else { return nil }
        return Self.byteOrderMarkInside
    }

    /// Why a byte order mark past a file's start is refused (traces and scenarios alike).
    package static let byteOrderMarkInside =
        "a byte order mark (U+FEFF) inside the file: expected one at most, at its start (two files joined?)"

    /// The one line that refuses a UTF-16 or UTF-32 file (traces and scenarios alike): its
    /// encoding and the iconv call that converts it; nil for anything else.
    package static func otherEncodingMessage(_ bytes: [UInt8]) -> String? {
        otherEncoding(bytes).map {
            "the file is \($0.name), expected UTF-8: convert it first, e.g. iconv -f \($0.iconv) -t UTF-8"
        }
    }

    /// The encoding of a file that is not UTF-8 but UTF-16 or UTF-32, by its byte order
    /// mark or, without one, by the zero bytes of ASCII text in its first four bytes; nil
    /// for anything else (UTF-8 is checked field by field).
    static func otherEncoding(_ b: [UInt8]) -> (name: String, iconv: String)? {
        func starts(_ p: [UInt8]) -> Bool { b.starts(with: p) }
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return ("UTF-32 big-endian (byte order mark 00 00 FE FF)", "UTF-32BE") }
        if starts([0xFF, 0xFE, 0x00, 0x00]) {
            return ("UTF-32 little-endian (byte order mark FF FE 00 00)", "UTF-32LE")
        }
        if starts([0xFE, 0xFF]) { return ("UTF-16 big-endian (byte order mark FE FF)", "UTF-16BE") }
        if starts([0xFF, 0xFE]) { return ("UTF-16 little-endian (byte order mark FF FE)", "UTF-16LE") }
        guard b.count >= 4 else { return nil }
        let zero = b.prefix(4).map { $0 == 0 }
        switch (zero[0], zero[1], zero[2], zero[3]) {
        case (false, true, true, true): return ("UTF-32 little-endian (no byte order mark)", "UTF-32LE")
        case (true, true, true, false): return ("UTF-32 big-endian (no byte order mark)", "UTF-32BE")
        case (false, true, false, true): return ("UTF-16 little-endian (no byte order mark)", "UTF-16LE")
        case (true, false, true, false): return ("UTF-16 big-endian (no byte order mark)", "UTF-16BE")
        default: return nil
        }
    }

    /// Why byte `c` cannot stand in a field, or nil: control characters other than tab
    /// (a NUL would end the text early for C-string parsers, an escape sequence would reach
    /// the terminal in messages). Line breaks are handled by the record loop.
    @inline(__always) static func unreadable(_ c: UInt8) -> String? {
        guard c < 0x20 && c != 0x09 && c != lineFeed && c != carriageReturn || c == 0x7F else { return nil }
        return "control character U+\(hex(c, width: 4)) in a field: expected text"
    }

    /// The index of the first byte of `bytes` that does not belong to well-formed UTF-8,
    /// or nil (ASCII fields cost one pass over their bytes).
    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            let length =
                b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            guard length > 0, i + length <= bytes.endIndex,
                bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 })
            else { return i }
            // Overlong 3- and 4-byte forms, surrogates and code points above U+10FFFF.
            if length == 3 {
                let n = bytes[i + 1]
                if b == 0xE0 && n < 0xA0 || b == 0xED && n > 0x9F { return i }
            } else if length == 4 {
                let n = bytes[i + 1]
                if b == 0xF0 && n < 0x90 || b == 0xF4 && n > 0x8F { return i }
            }
            i += length
        }
        return nil
    }

    static func hex(_ b: UInt8, width: Int = 2) -> String {
        let digits = String(b, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Reads a table: the first record goes to `header`, which reports its own problems;
    /// when it has none, every later record must have as many fields (else a problem) and
    /// goes to `row`. A record that cannot be read is a problem of its line. Returns false
    /// for a file without a record.
    package func forEachRow(problems: LineProblems, header: (Int, [Field]) -> Void, row: (Int, [Field]) -> Void) -> Bool
    {
        var headerSeen = false, headerOK = false, width = 0
        forEachRecord(
            { line, fields in
                if !headerSeen {
                    headerSeen = true
                    width = fields.count
                    header(line, fields)
                    headerOK = problems.isEmpty
                } else if headerOK {
                    guard fields.count == width else {
                        return problems.add(
                            line: line, column: 1, "", "\(fields.count) fields where the header has \(width)")
                    }
                    row(line, fields)
                }
            },
            failure: { failure in
                headerSeen = true
                problems.add(line: failure.line, column: failure.column, "", failure.message)
            })
        return headerSeen
    }
}
