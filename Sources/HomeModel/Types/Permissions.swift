/// The permissions of a characteristic (HAP spec §6.3.3, Table 6-4): `pr` paired read, `pw` paired write,
/// `ev` events (notify), `aa` additional authorization, `tw` timed write, `hd` hidden, `wr` write response.
public struct Permissions: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let pairedRead = Permissions(rawValue: 1 << 0)
    public static let pairedWrite = Permissions(rawValue: 1 << 1)
    public static let events = Permissions(rawValue: 1 << 2)
    public static let additionalAuthorization = Permissions(rawValue: 1 << 3)
    public static let timedWrite = Permissions(rawValue: 1 << 4)
    public static let hidden = Permissions(rawValue: 1 << 5)
    public static let writeResponse = Permissions(rawValue: 1 << 6)

    /// The HAP JSON names, in the order HAP lists them.
    public static let names: [(String, Permissions)] = [
        ("pr", .pairedRead), ("pw", .pairedWrite), ("ev", .events), ("aa", .additionalAuthorization),
        ("tw", .timedWrite), ("hd", .hidden), ("wr", .writeResponse),
    ]

    /// Builds permissions from HAP JSON names (`["pr","pw","ev"]`); unknown names are ignored.
    public init<S: Sequence>(names: S) where S.Element == String {
        var p: Permissions = []
        for n in names {
            // On the two UTF-8 bytes, any case: a lower-cased copy of each name compared as strings with
            // every known one would be a fifth of reading a characteristic.
            var bytes = n.utf8.makeIterator()
            guard let a = bytes.next(), let b = bytes.next(), bytes.next() == nil else { continue }
            switch (a | 0x20, b | 0x20) {
            case (0x70, 0x72): p.insert(.pairedRead)  // pr
            case (0x70, 0x77): p.insert(.pairedWrite)  // pw
            case (0x65, 0x76): p.insert(.events)  // ev
            case (0x61, 0x61): p.insert(.additionalAuthorization)  // aa
            case (0x74, 0x77): p.insert(.timedWrite)  // tw
            case (0x68, 0x64): p.insert(.hidden)  // hd
            case (0x77, 0x72): p.insert(.writeResponse)  // wr
            default: break
            }
        }
        self = p
    }

    /// The HAP JSON names of these permissions (`["pr","pw","ev"]`).
    public var hapNames: [String] { Permissions.names.filter { contains($0.1) }.map(\.0) }

    public var description: String { hapNames.joined(separator: ",") }

    public init(from decoder: any Decoder) throws {
        self.init(names: try decoder.singleValueContainer().decode([String].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hapNames)
    }
}
