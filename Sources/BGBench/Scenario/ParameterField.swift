import Foundation

/// One declared parameter of a `ParameterSet`: JSON name, unit, range as the docs show it,
/// a one-line doc, and the range check.
public struct ParameterField<Root> {
    public let name: String
    public let unit: String
    /// The range as docs/scenario.md shows it ("1m to 7d", "0 to 1", "≥ 0").
    public let range: String
    public let doc: String
    /// A nested parameter set's type (`routine_change`), whose fields the docs list under this one.
    public let nested: (any ParameterSet.Type)?
    /// How the docs name a nested set's entries: "" (a group), "[i]" (a list), ".<name>" (a map).
    public let nestedPath: String
    /// The nested set's values in a value of Root (the docs show their defaults).
    let nestedValues: (Root) -> [any ParameterSet]
    let check: (Root, inout ParameterChecker, String) -> Void

    public init(
        name: String, unit: String, range: String, doc: String,
        check: @escaping (Root, inout ParameterChecker, String) -> Void
    ) {
        (self.name, self.unit, self.range, self.doc, self.check) = (name, unit, range, doc, check)
        (nested, nestedPath, nestedValues) = (nil, "", { _ in [] })
    }

    init(
        name: String, unit: String, range: String, doc: String, nested: any ParameterSet.Type, nestedPath: String,
        nestedValues: @escaping (Root) -> [any ParameterSet],
        check: @escaping (Root, inout ParameterChecker, String) -> Void
    ) {
        (self.name, self.unit, self.range, self.doc, self.check) = (name, unit, range, doc, check)
        (self.nested, self.nestedPath, self.nestedValues) = (nested, nestedPath, nestedValues)
    }

    /// A duration in a fixed range.
    public static func duration(
        _ key: KeyPath<Root, TimeSpan>, _ name: String, in range: ClosedRange<TimeSpan>,
        _ doc: String
    ) -> Self {
        Self(name: name, unit: "duration", range: "\(range.lowerBound) to \(range.upperBound)", doc: doc) {
            root, c, path in
            c.check(root[keyPath: key], in: range, path)
        }
    }

    /// A duration whose range depends on other fields; `shown` is the range as the docs say it.
    public static func duration(
        _ key: KeyPath<Root, TimeSpan>, _ name: String, in range: @escaping (Root) -> ClosedRange<TimeSpan>,
        shown: String, _ doc: String
    ) -> Self {
        Self(name: name, unit: "duration", range: shown, doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range(root), path)
        }
    }

    /// A number in a fixed range.
    public static func number(
        _ key: KeyPath<Root, Double>, _ name: String, _ unit: String, in range: ClosedRange<Double>,
        _ doc: String
    ) -> Self {
        Self(
            name: name, unit: unit,
            range: "\(ParameterChecker.format(range.lowerBound)) to \(ParameterChecker.format(range.upperBound))",
            doc: doc
        ) { root, c, path in
            c.check(root[keyPath: key], in: range, path)
        }
    }

    /// A number whose range depends on other fields; `note` ends the error message.
    public static func number(
        _ key: KeyPath<Root, Double>, _ name: String, _ unit: String,
        in range: @escaping (Root) -> ClosedRange<Double>, shown: String, note: String = "",
        _ doc: String
    ) -> Self {
        Self(name: name, unit: unit, range: shown, doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range(root), path, note: note)
        }
    }

    /// A number with a lower bound only.
    public static func number(
        _ key: KeyPath<Root, Double>, _ name: String, _ unit: String, atLeast bound: Double,
        _ doc: String
    ) -> Self {
        Self(name: name, unit: unit, range: "≥ \(ParameterChecker.format(bound))", doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: bound..., path)
        }
    }

    /// An integer in a fixed range.
    public static func integer(
        _ key: KeyPath<Root, Int>, _ name: String, _ unit: String, in range: ClosedRange<Int>,
        _ doc: String
    ) -> Self {
        Self(name: name, unit: unit, range: "\(range.lowerBound) to \(range.upperBound)", doc: doc) { root, c, path in
            c.check(root[keyPath: key], in: range, path)
        }
    }

    /// A switch.
    public static func flag(_ key: KeyPath<Root, Bool>, _ name: String, _ doc: String) -> Self {
        Self(name: name, unit: "boolean", range: "", doc: doc) { _, _, _ in }
    }

    /// A file's path (a string; "" for none): what the file must hold is the reader's
    /// to check, when the component runs.
    public static func path(_ key: KeyPath<Root, String>, _ name: String, _ doc: String) -> Self {
        Self(name: name, unit: "path", range: "", doc: doc) { _, _, _ in }
    }

    /// One of a String enum's values (the decoder rejects the others).
    public static func choice<E: CaseIterable & RawRepresentable<String>>(
        _ key: KeyPath<Root, E>, _ name: String,
        _ doc: String
    ) -> Self {
        Self(name: name, unit: "choice", range: E.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "), doc: doc)
        { _, _, _ in }
    }

    /// A nested parameter set (a reusable group of fields, e.g. `routine_change`).
    public static func group<G: ParameterSet>(_ key: KeyPath<Root, G>, _ name: String, _ doc: String) -> Self {
        Self(
            name: name, unit: "object", range: "", doc: doc, nested: G.self, nestedPath: "",
            nestedValues: { [$0[keyPath: key]] }
        ) { root, c, path in
            root[keyPath: key].check(into: &c, at: path)
        }
    }

    /// A list of parameter sets (`utc_offsets`), each checked at `path[i]`; at most `maxCount`.
    public static func list<E: ParameterSet>(
        _ key: KeyPath<Root, [E]>, _ name: String, maxCount: Int? = nil,
        _ doc: String
    ) -> Self {
        Self(
            name: name, unit: "list", range: maxCount.map { "at most \($0) entries" } ?? "", doc: doc, nested: E.self,
            nestedPath: "[i]", nestedValues: { $0[keyPath: key] }
        ) { root, c, path in
            let list = root[keyPath: key]
            if let maxCount, list.count > maxCount {
                c.fail(path, "expected at most \(maxCount) entries, got \(list.count)")
            }
            for (i, element) in list.enumerated() { element.check(into: &c, at: "\(path)[\(i)]") }
        }
    }

    /// A map of parameter sets by free names (`archetypes`), each checked at `path.<name>`,
    /// in the order of the names.
    public static func map<E: ParameterSet>(_ key: KeyPath<Root, [String: E]>, _ name: String, _ doc: String) -> Self {
        Self(
            name: name, unit: "map", range: "", doc: doc, nested: E.self, nestedPath: ".<name>",
            nestedValues: { $0[keyPath: key].sorted { $0.key < $1.key }.map(\.value) }
        ) { root, c, path in
            for (entry, element) in root[keyPath: key].sorted(by: { $0.key < $1.key }) {
                element.check(into: &c, at: path + "." + entry)
            }
        }
    }

    /// 24 (or `count`) relative weights: none negative, a positive sum.
    public static func weights(_ key: KeyPath<Root, [Double]>, _ name: String, count: Int, _ doc: String) -> Self {
        Self(name: name, unit: "weights", range: "\(count) numbers ≥ 0, positive sum", doc: doc) { root, c, path in
            c.checkWeights(root[keyPath: key], count: count, path)
        }
    }
}
