/// Writes RFC 4180 CSV to any text stream: fields with a comma, a quote, CR or LF are
/// quoted and quotes doubled; lines end in LF; numbers never depend on the locale.
public struct CSVWriter<Output: TextOutputStream> {
    public var output: Output
    public init(_ output: Output) { self.output = output }

    public mutating func row(_ fields: [String]) {
        output.write(fields.map(Self.quote).joined(separator: ","))
        output.write("\n")
    }

    public static func quote(_ field: String) -> String {
        // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard field.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// How numbers appear in reports: integers without a decimal point, other values in
/// Swift's shortest round-trip form (always `.` as the decimal separator), missing
/// values (NaN, no interval) as an empty field.
public enum CSVNumber {
    public static func format(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "" }
        if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)
    }

    /// A time in ticks as exact decimal seconds, at most six decimals ("12941.273289").
    public static func seconds(_ ticks: SimTime) -> String {
        let sign = ticks < 0 ? "-" : ""
        let m = ticks.magnitude
        let whole = m / 1_000_000, fraction = m % 1_000_000
        guard fraction > 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return sign + String(whole) + "." + digits
    }
}

import Foundation
