internal import Foundation

/// Topic-safe names (docs/DESIGN.md "Identity and names"): lower-case `[a-z0-9_-]`, made from a human name.
///
/// Letters with diacritics lose them (`Küche` → `kuche`); every run of other characters becomes one `_`;
/// `+`, `#`, `/`, NUL and control characters therefore never reach a topic.
public enum Slug {
    /// Slugs the gateway keeps for itself: `bridge` for its own topics, `response` for the answers to
    /// MQTT 5 requests that name a response topic under the base topic (`ResponseTopicPolicy`).
    public static let reserved: Set<String> = ["bridge", responseLevel]

    /// The level under the base topic where answers on MQTT 5 response topics may go.
    public static let responseLevel = "response"

    /// The slug of `name`, or `fallback` when nothing of it is left.
    public static func make(_ name: String, fallback: String = "accessory") -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var out = ""
        var pendingSeparator = false
        for scalar in folded.unicodeScalars {
            let isAllowed = (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9")
                || scalar == "-" || scalar == "_"
            if isAllowed {
                if pendingSeparator, !out.isEmpty { out.append("_") }
                pendingSeparator = false
                out.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        while let last = out.last, last == "_" || last == "-" { out.removeLast() }
        while let first = out.first, first == "_" || first == "-" { out.removeFirst() }
        return out.isEmpty ? fallback : out
    }

    /// Whether `text` is already a valid slug: non-empty `[a-z0-9_-]`.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_"
        }
    }

    /// `base` made unique against `taken` by appending `_2`, `_3`, …
    public static func unique(_ base: String, taken: (String) -> Bool) -> String {
        if !taken(base) { return base }
        var n = 2
        while taken("\(base)_\(n)") { n += 1 }
        return "\(base)_\(n)"
    }
}
