/// A service of an accessory: a group of characteristics of one HAP service type, addressed by `iid`
/// (HAP spec §6.3.2).
public struct Service: Sendable, Hashable {
    public var iid: Int
    public var type: HAPType
    public var isPrimary: Bool
    public var isHidden: Bool
    /// iids of linked services.
    public var linked: [Int]
    public var characteristics: [Characteristic]

    public init(
        iid: Int, type: HAPType, isPrimary: Bool = false, isHidden: Bool = false, linked: [Int] = [],
        characteristics: [Characteristic]
    ) {
        self.iid = iid
        self.type = type
        self.isPrimary = isPrimary
        self.isHidden = isHidden
        self.linked = linked
        self.characteristics = characteristics
    }

    /// The first characteristic of the given type (lesson 2: find characteristics by type).
    public func characteristic(ofType type: HAPType) -> Characteristic? {
        characteristics.first { $0.type == type }
    }

    /// The characteristic with instance id `iid`.
    public func characteristic(iid: Int) -> Characteristic? { characteristics.first { $0.iid == iid } }
}
