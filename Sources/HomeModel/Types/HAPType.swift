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
    private static let appleBaseSuffixBytes = Array(appleBaseSuffix.utf8)

    /// Normalises `string` (short form of up to 8 hex digits, 32 hex digits, or a 36-character UUID).
    /// Returns nil when the string is none of those forms.
    public init?(_ string: String) {
        // On the UTF-8 bytes: with `Character`s, Foundation's trimming and a `Set` per call this would be a
        // third of parsing `/accessories` (hap2mqtt-bench hap).
        var bytes = Array(string.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
        if start > 0 { bytes.removeFirst(start) }
        for i in bytes.indices where (0x61...0x7A).contains(bytes[i]) { bytes[i] -= 0x20 }
        let isHex = { (b: UInt8) in (0x30...0x39).contains(b) || (0x41...0x46).contains(b) }
        if (1...8).contains(bytes.count), bytes.allSatisfy(isHex) {
            // One buffer made into one string: three strings joined would be a fifth of reading a
            // characteristic.
            var full = [UInt8](repeating: UInt8(ascii: "0"), count: 8 - bytes.count)
            full.reserveCapacity(8 + HAPType.appleBaseSuffixBytes.count)
            full += bytes
            full += HAPType.appleBaseSuffixBytes
            uuid = String(decoding: full, as: UTF8.self)
        } else if bytes.count == 32, bytes.allSatisfy(isHex) {
            var dashed = bytes
            for position in [8, 13, 18, 23] { dashed.insert(UInt8(ascii: "-"), at: position) }
            uuid = String(decoding: dashed, as: UTF8.self)
        } else if bytes.count == 36 {
            for (i, b) in bytes.enumerated() {
                guard i == 8 || i == 13 || i == 18 || i == 23 ? b == UInt8(ascii: "-") : isHex(b) else { return nil }
            }
            uuid = String(decoding: bytes, as: UTF8.self)
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
