/// Finds the known name nearest to a misspelt one, for "did you mean …?" in error messages.
enum KeySuggestion {
    /// The candidate closest to `name` by edit distance (Levenshtein, case-insensitive), when it is
    /// close enough to be a typo: at most one edit for names up to four characters, two up to eight,
    /// three beyond. Ties go to the first candidate.
    static func nearest(to name: String, among candidates: [String]) -> String? {
        let typed = Array(name.lowercased())
        let allowed = typed.count <= 4 ? 1 : typed.count <= 8 ? 2 : 3
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
