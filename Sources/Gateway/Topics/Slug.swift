internal import Foundation

/// Topic-safe names (docs/DESIGN.md "Identity and names"): lower-case `[a-z0-9_-]`, made from a human name.
///
/// Letters with diacritics lose them (`Küche` → `kuche`), and Latin letters that have none to lose are
/// spelt in ASCII (`Kjøkken` → `kjokken`, `Straße` → `strasse`), as Home Assistant's own entity ids
/// spell them; every run of other characters becomes one `_`;
/// `+`, `#`, `/`, NUL and control characters therefore never reach a topic. A slug is at most
/// `maximumLength` characters, so that every topic built from slugs stays far below what MQTT and brokers
/// accept (docs/DESIGN.md "Identity and names").
public enum Slug {
    /// Slugs the gateway keeps for itself: `bridge` for its own topics, `response` for the answers to
    /// MQTT 5 requests that name a response topic under the base topic (`ResponseTopicPolicy`), `groups`
    /// for the groups' topics (docs/scenes-and-groups.md).
    public static let reserved: Set<String> = ["bridge", responseLevel, TopicScheme.groupsLevel]

    /// The level under the base topic where answers on MQTT 5 response topics may go.
    public static let responseLevel = "response"

    /// The longest slug, in characters (all ASCII, so also in bytes): HAP's own limit for a name
    /// (64 characters). Three slugs and the longest base topic (`TopicScheme.maximumBaseLength`) then
    /// make a topic of a few hundred bytes, where MQTT allows 65,535.
    public static let maximumLength = 64

    /// The slug of `name`, or `fallback` when nothing of it is left.
    public static func make(_ name: String, fallback: String = "accessory") -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var out = ""
        var pendingSeparator = false
        for scalar in folded.unicodeScalars {
            if let spelling = spellings[scalar] {
                for letter in spelling.unicodeScalars { append(letter, to: &out, pendingSeparator: &pendingSeparator) }
            } else {
                append(scalar, to: &out, pendingSeparator: &pendingSeparator)
            }
        }
        while let last = out.last, last == "_" || last == "-" { out.removeLast() }
        while let first = out.first, first == "_" || first == "-" { out.removeFirst() }
        if out.count > maximumLength { out = trimmed(String(out.prefix(maximumLength))) }
        return out.isEmpty ? fallback : out
    }

    /// Lower-case Latin letters that folding diacritics leaves alone (they are letters of their own, not
    /// a letter with a mark), in ASCII.
    private static let spellings: [Unicode.Scalar: String] = [
        "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d", "þ": "th", "ł": "l", "ı": "i", "ŧ": "t",
        "ħ": "h", "ŋ": "n", "ĸ": "k",
    ]

    private static func append(_ scalar: Unicode.Scalar, to out: inout String, pendingSeparator: inout Bool) {
        let isAllowed =
            (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9")
            || scalar == "-" || scalar == "_"
        if isAllowed {
            if pendingSeparator, !out.isEmpty { out.append("_") }
            pendingSeparator = false
            out.unicodeScalars.append(scalar)
        } else {
            pendingSeparator = true
        }
    }

    /// `text` without separators at its end.
    private static func trimmed(_ text: String) -> String {
        var out = text
        while let last = out.last, last == "_" || last == "-" { out.removeLast() }
        return out
    }

    /// Whether `text` is already a valid slug: non-empty `[a-z0-9_-]`, at most `maximumLength` long.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength
            && text.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_"
            }
    }

    /// `base` made unique against `taken` by appending `_2`, `_3`, …, shortening `base` where the
    /// suffix would make the slug longer than `maximumLength`.
    public static func unique(_ base: String, taken: (String) -> Bool) -> String {
        if !taken(base) { return base }
        var n = 2
        while taken(numbered(base, n)) { n += 1 }
        return numbered(base, n)
    }

    private static func numbered(_ base: String, _ n: Int) -> String {
        let suffix = "_\(n)"
        return trimmed(String(base.prefix(maximumLength - suffix.count))) + suffix
    }
}
