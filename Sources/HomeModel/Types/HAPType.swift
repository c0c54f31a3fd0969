internal import Foundation

/// A HAP service or characteristic type: a UUID in Apple's base form or a vendor UUID.
///
/// Stored normalised as the upper-case, 36-character UUID (`00000025-0000-1000-8000-0026BB765291`).
/// Accessories send the short form (`"25"`), the long form, or 32 hex digits without dashes; all three
/// normalise to the same value (HAP spec §6.6.1; aiohomekit `normalize_uuid`).
public struct HAPType: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The normalised 36-character upper-case UUID.
    public let uuid: String

    /// Apple's base UUID suffix for HAP-defined types.
    public static let appleBaseSuffix = "-0000-1000-8000-0026BB765291"

    /// Normalises `string` (short form of up to 8 hex digits, 32 hex digits, or a 36-character UUID).
    /// Returns nil when the string is none of those forms.
    public init?(_ string: String) {
        let s = string.trimmingCharacters(in: .whitespaces).uppercased()
        let hex = Set("0123456789ABCDEF")
        if (1...8).contains(s.count), s.allSatisfy(hex.contains) {
            uuid = String(repeating: "0", count: 8 - s.count) + s + HAPType.appleBaseSuffix
        } else if s.count == 32, s.allSatisfy(hex.contains) {
            let c = Array(s)
            uuid =
                String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-"
                + String(c[16..<20]) + "-" + String(c[20..<32])
        } else if s.count == 36 {
            let c = Array(s)
            for (i, ch) in c.enumerated() {
                if [8, 13, 18, 23].contains(i) {
                    guard ch == "-" else { return nil }
                } else {
                    guard hex.contains(ch) else { return nil }
                }
            }
            uuid = s
        } else {
            return nil
        }
    }

    /// Whether the type is an Apple-defined one (its UUID ends in Apple's base suffix).
    public var isAppleDefined: Bool { uuid.hasSuffix(HAPType.appleBaseSuffix) }

    /// The short form HAP servers emit: the first eight hex digits without leading zeros (`"25"`, `"3E"`),
    /// or the full UUID for vendor types.
    public var shortForm: String {
        guard isAppleDefined else { return uuid }
        let head = uuid.prefix(8).drop(while: { $0 == "0" })
        return head.isEmpty ? "0" : String(head)
    }

    public var description: String { shortForm }

    public static func < (lhs: HAPType, rhs: HAPType) -> Bool { lhs.uuid < rhs.uuid }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let t = HAPType(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a HAP type UUID: \(s)")
        }
        self = t
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(shortForm)
    }
}
