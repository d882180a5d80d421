import Foundation

/// A CSV file read back per RFC 4180 (``CSVReader``'s ``CSVReader/Dialect/reportTable``
/// dialect): fields separated by commas, records by LF, CRLF or CR; a field in double
/// quotes may hold commas, quotes (doubled) and line breaks. The first record is the
/// header; every other record must have as many fields. Empty lines are skipped.
public struct CSVTable: Sendable, Equatable {
    public var header: [String]
    public var rows: [[String]]
    /// The line each row starts on (the header is line 1), for messages.
    public var lines: [Int]

    public init(header: [String], rows: [[String]], lines: [Int]) {
        self.header = header; self.rows = rows; self.lines = lines
    }

    /// The position of a column, or nil.
    public func index(of column: String) -> Int? { header.firstIndex(of: column) }

    public init(parsing text: String) throws(CSVParseError) {
        var records: [[String]] = [], starts: [Int] = []
        var firstFailure: CSVReader.Failure?
        CSVReader(bytes: Array(text.utf8), dialect: .reportTable).forEachRecord(
            { line, fields in
                guard firstFailure == nil else { return }
                records.append(fields.map(\.text))
                starts.append(line)
            },
            failure: { failure in
                if firstFailure == nil { firstFailure = failure }
            })
        if let firstFailure { throw CSVParseError(line: firstFailure.line, message: firstFailure.message) }
        guard let first = records.first, first != [""] else { throw CSVParseError(line: 1, message: "no header") }
        for (r, n) in zip(records.dropFirst(), starts.dropFirst()) where r.count != first.count {
            throw CSVParseError(line: n, message: "\(r.count) fields where the header has \(first.count)")
        }
        header = first
        rows = Array(records.dropFirst())
        lines = Array(starts.dropFirst())
    }
}

/// Why a CSV text does not parse, and on which line.
public struct CSVParseError: Error, Equatable, Sendable {
    public var line: Int
    public var message: String
}
