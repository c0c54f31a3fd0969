internal import Foundation

/// Base64 (RFC 4648 §4, with padding) for `tlv8` and `data` values.
public enum Base64 {
    /// Encodes bytes as standard base64 with padding.
    public static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// Decodes standard base64; surrounding white space is ignored. Returns nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)).map { [UInt8]($0) }
    }
}
