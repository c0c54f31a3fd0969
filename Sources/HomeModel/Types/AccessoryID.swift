/// An accessory's stable id: the accessory server's pairing id (its mDNS `id`, e.g. `AA:BB:CC:DD:EE:FF`)
/// and the accessory's `aid` on that server, written `AA:BB:CC:DD:EE:FF/2` (docs/DESIGN.md "Identity and names").
///
/// The pairing id is compared case-insensitively and stored upper-case; it does not change with the
/// accessory's IP address or name.
public struct AccessoryID: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The accessory server's pairing id (upper-case), or another backend's stable server id.
    public let serverID: String
    /// The accessory instance id on that server (1 for the server itself or a bridge).
    public let aid: Int

    public init(serverID: String, aid: Int) {
        self.serverID = serverID.uppercased()
        self.aid = aid
    }

    /// Parses `SERVER/AID`; nil when there is no `/` followed by an integer.
    public init?(_ string: String) {
        guard let slash = string.lastIndex(of: "/"), let aid = Int(string[string.index(after: slash)...]),
            slash != string.startIndex
        else { return nil }
        self.init(serverID: String(string[..<slash]), aid: aid)
    }

    public var description: String { "\(serverID)/\(aid)" }

    public static func < (lhs: AccessoryID, rhs: AccessoryID) -> Bool {
        (lhs.serverID, lhs.aid) < (rhs.serverID, rhs.aid)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let id = AccessoryID(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an accessory id: \(s)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// One characteristic of one accessory: (`accessory`, `iid`). HAP addresses it as `aid.iid`.
public struct CharacteristicAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let accessory: AccessoryID
    public let iid: Int

    public init(accessory: AccessoryID, iid: Int) {
        self.accessory = accessory
        self.iid = iid
    }

    public var description: String { "\(accessory).\(iid)" }

    public static func < (lhs: CharacteristicAddress, rhs: CharacteristicAddress) -> Bool {
        (lhs.accessory, lhs.iid) < (rhs.accessory, rhs.iid)
    }
}
