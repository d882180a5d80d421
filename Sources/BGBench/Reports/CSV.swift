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
        var bytes: [UInt8] = []
        appendSeconds(ticks, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `seconds(ticks)`'s text, appended to `bytes`.
    static func appendSeconds(_ ticks: SimTime, to bytes: inout [UInt8]) {
        if ticks < 0 { bytes.append(UInt8(ascii: "-")) }
        let m = ticks.magnitude
        appendDecimal(m / 1_000_000, to: &bytes)
        var fraction = m % 1_000_000
        guard fraction > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var digits = 6
        while fraction % 10 == 0 {  // trailing zeros dropped
            fraction /= 10
            digits -= 1
        }
        var divisor: UInt64 = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// The decimal digits of `v`, appended to `bytes`.
    static func appendDecimal(_ v: UInt64, to bytes: inout [UInt8]) {
        var divisor: UInt64 = 1
        while v / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
            divisor /= 10
        }
    }
}

import Foundation
