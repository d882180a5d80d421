/// "Did you mean" for names users type: flags, commands, policies, scenario keys.
public enum Suggestion {
    /// The candidate nearest to `word` within edit distance 2 (the first on a tie), or nil.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: editDistance(word, $0)) }.filter { $0.distance <= 2 }
        return scored.min { $0.distance < $1.distance }?.candidate
    }

    /// Levenshtein distance over characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let b = Array(b)
        var row = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var next = [i + 1]
            for (j, cb) in b.enumerated() {
                next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (ca == cb ? 0 : 1)))
            }
            row = next
        }
        return row[b.count]
    }
}
