/// A JSON value as the scenario loader sees it (RFC 8259). Numbers keep their source text, so
/// re-serialising never changes them; objects keep their keys in file order.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    package var object: JSONObject? { if case .object(let o) = self { o } else { nil } }
    package var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// Compact JSON text.
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(_, let text): out += text
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                e.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, member) in o.members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// A JSON object's members: in insertion order, looked up by key.
package struct JSONObject: Sendable, Equatable {
    package private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    /// Setting a new key appends it; setting nil removes the key.
    package subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if newValue == nil {
                keys.removeAll { $0 == key }
            } else if values[key] == nil {
                keys.append(key)
            }
            values[key] = newValue
        }
    }

    package var members: [(key: String, value: JSONValue)] { keys.map { ($0, values[$0]!) } }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }
}

/// A 1-based line and column; columns count Unicode scalars.
package struct SourcePosition: Sendable, Equatable {
    package var line: Int
    package var column: Int
    package init(line: Int, column: Int) { self.line = line; self.column = column }
}

/// Dotted JSON paths as users read them: `population.routine.opens[1].at`.
package enum JSONPathText {
    package static func key(_ parent: String, _ key: String) -> String { parent.isEmpty ? key : parent + "." + key }
    package static func index(_ parent: String, _ index: Int) -> String { "\(parent)[\(index)]" }
}

/// A parsed JSON text with the position of every value and every object key, by JSON path
/// (the root value's path is "").
package struct JSONDocument: Sendable {
    package var root: JSONValue
    package var valuePositions: [String: SourcePosition] = [:]
    package var keyPositions: [String: SourcePosition] = [:]
    /// Problems after which parsing went on (a duplicate key: the first value is kept; a
    /// number beyond a double's range), so that one pass reports every problem.
    package var problems: [JSONSyntaxError] = []
}

/// Why a text is not JSON, and where; `path` is set for a duplicate key.
package struct JSONSyntaxError: Error, Equatable {
    package var position: SourcePosition
    package var path: String = ""
    package var message: String
}

/// A strict RFC 8259 parser over UTF-8 bytes. Duplicate keys and numbers beyond a double's
/// range are problems (`JSONDocument.problems`); strings, arrays, objects and nesting have
/// caps (docs/limits.md), so that no input makes memory grow without bound.
package struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    /// The last computed column, so that long lines are scanned once.
    private var columnMark = (offset: 0, column: 1)
    private var depth = 0
    private var document = JSONDocument(root: .null)

    static let maxDepth = 512
    static let maxStringBytes = 65_536
    static let maxArrayElements = 100_000
    static let maxObjectMembers = 10_000

    /// Parses one JSON value surrounded by optional whitespace (and an optional byte order
    /// mark). `lenient`: problems after which parsing can go on are returned in the document
    /// rather than thrown (the first of them), so a loader can report them all.
    package static func parse(_ text: String, lenient: Bool = false) throws(JSONSyntaxError) -> JSONDocument {
        var parser = JSONParser(bytes: Array(text.utf8))
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { (parser.i, parser.lineStart) = (3, 3) }
        parser.document.root = try parser.value(at: "")
        parser.skipWhitespace()
        if parser.i < parser.bytes.count { throw parser.error("unexpected text after the JSON value") }
        if !lenient, let first = parser.document.problems.first { throw first }
        return parser.document
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func position(at offset: Int) -> SourcePosition {
        if columnMark.offset < lineStart || columnMark.offset > offset { columnMark = (lineStart, 1) }
        var column = columnMark.column
        for b in bytes[columnMark.offset..<offset] where b & 0xC0 != 0x80 { column += 1 }
        columnMark = (offset, column)
        return SourcePosition(line: line, column: column)
    }

    /// An error at `offset`, or else here; here at the end of the text it is "unexpected end of file".
    private mutating func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let atEnd = offset == nil && i >= bytes.count
        return JSONSyntaxError(position: position(at: offset ?? i), message: atEnd ? "unexpected end of file" : message)
    }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
            i += 1
            if b == 0x0A { line += 1; lineStart = i }
        }
    }

    private mutating func value(at path: String) throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard let b = peek else { throw error("unexpected end of file") }
        document.valuePositions[path] = position(at: i)
        switch b {
        case UInt8(ascii: "{"): return try object(at: path)
        case UInt8(ascii: "["): return try array(at: path)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number(at: path)
        default: throw error("expected a value, found \(describeCharacter())")
        }
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nested deeper than \(JSONParser.maxDepth) levels") }
        i += 1
    }

    private mutating func object(at path: String) throws(JSONSyntaxError) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        var object = JSONObject()
        skipWhitespace()
        if peek == UInt8(ascii: "}") { i += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a string key, found \(describeCharacter())") }
            let keyPosition = position(at: i)
            let key = try string()
            let childPath = JSONPathText.key(path, key)
            let duplicate = object[key] != nil
            if duplicate {
                let first =
                    document.keyPositions[childPath].map {
                        " (first at line \($0.line), column \($0.column); that value is kept)"
                    } ?? ""
                document.problems.append(
                    JSONSyntaxError(position: keyPosition, path: childPath, message: "duplicate key" + first))
            } else {
                document.keyPositions[childPath] = keyPosition
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else {
                throw error("expected ':' after the key, found \(describeCharacter())")
            }
            i += 1
            if duplicate {
                // Read (so that later problems are found) but not kept, nor its positions.
                let kept = document
                _ = try value(at: childPath)
                (document.valuePositions, document.keyPositions) = (kept.valuePositions, kept.keyPositions)
            } else {
                guard object.keys.count < JSONParser.maxObjectMembers else {
                    throw JSONSyntaxError(
                        position: keyPosition, path: path,
                        message: "more than \(JSONParser.maxObjectMembers) keys in one object (docs/limits.md)")
                }
                object[key] = try value(at: childPath)
            }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "}"): i += 1; return .object(object)
            default: throw error("expected ',' or '}', found \(describeCharacter())")
            }
        }
    }

    private mutating func array(at path: String) throws(JSONSyntaxError) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") { i += 1; return .array(elements) }
        while true {
            guard elements.count < JSONParser.maxArrayElements else {
                throw JSONSyntaxError(
                    position: position(at: i), path: path,
                    message: "more than \(JSONParser.maxArrayElements) elements in one array (docs/limits.md)")
            }
            elements.append(try value(at: JSONPathText.index(path, elements.count)))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"): i += 1; return .array(elements)
            default: throw error("expected ',' or ']', found \(describeCharacter())")
            }
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        guard bytes[i...].starts(with: word.utf8) else { throw error("expected a value, found \(describeCharacter())") }
        i += word.utf8.count
        return value
    }

    private mutating func number(at path: String) throws(JSONSyntaxError) -> JSONValue {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        if peek == UInt8(ascii: "0") {
            i += 1
        } else if !skipDigits() {
            throw error("invalid number", at: start)
        }
        if peek == UInt8(ascii: ".") {
            i += 1
            guard skipDigits() else { throw error("invalid number", at: start) }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard skipDigits() else { throw error("invalid number", at: start) }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        let number = Double(text) ?? .nan
        if !number.isFinite {
            let at = position(at: start)
            document.problems.append(
                JSONSyntaxError(
                    position: at, path: path,
                    message: "\(text) is out of range: expected a number of magnitude below 1.8e308"))
        }
        return .number(number, text: text)
    }

    /// Skips decimal digits; false when there were none.
    private mutating func skipDigits() -> Bool {
        let first = i
        while let b = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { i += 1 }
        return i > first
    }

    /// Reads a string starting at its opening quote.
    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        let start = i - 1
        while true {
            guard let b = peek else { throw error("unexpected end of file") }
            guard out.count < JSONParser.maxStringBytes else {
                throw error("a string longer than \(JSONParser.maxStringBytes) bytes (docs/limits.md)", at: start)
            }
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escapeStart = i
                i += 1
                guard let e = peek else { throw error("unexpected end of file") }
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4(escapeStart)
                    if (0xDC00...0xDFFF).contains(code) {
                        throw error("unpaired surrogate in \\u escape", at: escapeStart)
                    }
                    if (0xD800...0xDBFF).contains(code) {
                        guard bytes[i...].starts(with: "\\u".utf8) else {
                            throw error("unpaired surrogate in \\u escape", at: escapeStart)
                        }
                        i += 2
                        let low = try hex4(escapeStart)
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("unpaired surrogate in \\u escape", at: escapeStart)
                        }
                        code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                    }
                    out += Array(String(Unicode.Scalar(code)!).utf8)
                default:
                    throw error("invalid escape '\\\(describeCharacter(at: i - 1, quoted: false))'", at: escapeStart)
                }
            case 0..<0x20:
                throw error(
                    "control character U+\(String(b, radix: 16, uppercase: true).leftPadded(4)) in a string (escape it)"
                )
            case 0xEF where bytes[i...].starts(with: [0xEF, 0xBB, 0xBF]):
                throw error(CSVReader.byteOrderMarkInside)
            default:
                out.append(b)
                i += 1
            }
        }
    }

    private mutating func hex4(_ escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count, bytes[i..<i + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit })
        else { throw error("invalid \\u escape (expected 4 hex digits)", at: escapeStart) }
        defer { i += 4 }
        return UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16)!
    }

    /// The character at `offset` for an error message: `'x'`, `U+0007` when not printable
    /// or invisible (``Unicode/Scalar/isInvisible``), "a byte order mark U+FEFF" for one.
    private func describeCharacter(at offset: Int? = nil, quoted: Bool = true) -> String {
        let start = offset ?? i
        guard
            let scalar = String(decoding: bytes[start..<min(start + 4, bytes.count)], as: UTF8.self).unicodeScalars
                .first
        else { return "end of file" }
        if scalar.value == 0xFEFF { return "a byte order mark U+FEFF (two files joined?)" }
        if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F || scalar.isInvisible {
            return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(4)
        }
        return quoted ? "'\(scalar)'" : "\(scalar)"
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// A parsed value written back by JSONEncoder, in the encoder's own format (numbers as
/// the Doubles they parsed to: JSONEncoder wrote them, so they print alike).
extension JSONValue: Encodable {
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer(); try c.encode(b)
        case .number(let d, _):
            var c = encoder.singleValueContainer(); try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer(); try c.encode(s)
        case .array(let elements):
            var c = encoder.unkeyedContainer()
            for e in elements { try c.encode(e) }
        case .object(let o):
            var c = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in o.members { try c.encode(value, forKey: AnyKey(stringValue: key)) }
        }
    }
}
