internal import Foundation

/// JSON text for the web page's answers and events, through Foundation's `JSONSerialization` (RFC 8259).
enum JSONText {
    /// `text` as a JSON string literal.
    static func string(_ text: String) -> String {
        (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// An object or array of JSON values (`String`, `Int`, `Double`, `Bool`, `NSNull`, nested) as text with
    /// sorted keys.
    static func value(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// The JSON object in `bytes`; nil when they are not one.
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) as? [String: Any]
    }
}
