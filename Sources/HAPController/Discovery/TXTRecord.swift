/// A DNS-SD TXT record read as `key=value` pairs (RFC 6763 §6), within bounds: anyone on the network can
/// announce anything, so at most `maximumEntries` strings are read, each at most `maximumLength` bytes
/// (the DNS limit for one string), and the rest is ignored.
///
/// Keys are compared case-insensitively (RFC 6763 §6.4; aiohomekit lower-cases them too) and stored
/// lower-case; the first occurrence of a key wins (§6.4). A string without `=` is a key without value;
/// an empty string or one starting with `=` is skipped (§6.4).
struct TXTRecord: Sendable, Hashable {
    /// The most strings read.
    static let maximumEntries = 64
    /// The most bytes of one string read.
    static let maximumLength = 255

    /// The values by lower-case key; a key without `=` has an empty value.
    private(set) var values: [String: [UInt8]] = [:]

    /// Reads `strings`, the TXT record's strings in their order.
    init(_ strings: [[UInt8]]) {
        for string in strings.prefix(Self.maximumEntries) {
            let bytes = string.prefix(Self.maximumLength)
            guard let first = bytes.first, first != UInt8(ascii: "=") else { continue }
            let separator = bytes.firstIndex(of: UInt8(ascii: "=")) ?? bytes.endIndex
            // Keys are printable US-ASCII (RFC 6763 §6.4); a key with anything else is no key HAP defines.
            let keyBytes = bytes[..<separator]
            guard keyBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { continue }
            let key = String(decoding: keyBytes, as: UTF8.self).lowercased()
            guard values[key] == nil else { continue }
            values[key] = separator < bytes.endIndex ? Array(bytes[bytes.index(after: separator)...]) : []
        }
    }

    /// Whether the record has `key` (any case).
    func contains(_ key: String) -> Bool { values[key.lowercased()] != nil }

    /// The value of `key` (any case) as text: nil when absent or not valid UTF-8.
    func text(_ key: String) -> String? {
        values[key.lowercased()].flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The value of `key` (any case) as a decimal integer of at most 9 digits; nil when absent or not one.
    func integer(_ key: String) -> Int? {
        guard let bytes = values[key.lowercased()], !bytes.isEmpty, bytes.count <= 9,
            bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
