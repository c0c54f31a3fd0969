import JSON

/// A characteristic as HAP addresses it on one accessory server: `aid.iid` (HAP spec §6.7.4), the form
/// `GET /characteristics?id=1.10` and every `characteristics` item use.
public struct HAPCharacteristicID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The accessory instance id (1 for the server itself or a bridge).
    public var aid: Int
    /// The characteristic instance id within the accessory.
    public var iid: Int

    public init(aid: Int, iid: Int) {
        self.aid = aid
        self.iid = iid
    }

    /// Parses `aid.iid` (`1.10`); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]) else { return nil }
        self.init(aid: aid, iid: iid)
    }

    /// The `aid` and `iid` members of a `characteristics` item; nil when either is missing or not an
    /// integer.
    init?(item: JSONValue) {
        guard let aid = item["aid"]?.intValue, let iid = item["iid"]?.intValue else { return nil }
        self.init(aid: aid, iid: iid)
    }

    /// `aid.iid`, e.g. `1.10`.
    public var description: String { "\(aid).\(iid)" }

    public static func < (lhs: HAPCharacteristicID, rhs: HAPCharacteristicID) -> Bool {
        (lhs.aid, lhs.iid) < (rhs.aid, rhs.iid)
    }
}
