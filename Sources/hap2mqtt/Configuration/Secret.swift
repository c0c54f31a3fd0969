/// A secret (an MQTT password, a HAP setup code) that never prints: `description`, `debugDescription`,
/// string interpolation, `dump` and test failure messages all show `***`. Read the text with `reveal`
/// only where it is handed to the library that needs it (docs/DESIGN.md: setup codes, keys and passwords
/// never appear in logs, topics or `bridge/info`).
struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let text: String

    init(_ text: String) { self.text = text }

    /// The secret's text.
    var reveal: String { text }

    var description: String { "***" }
    var debugDescription: String { "***" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
