/// An accessory: one `aid` of an accessory server, with its services (HAP spec §6.3.1), plus where it
/// lives in the home.
public struct Accessory: Sendable, Hashable {
    public var id: AccessoryID
    public var services: [Service]
    /// A name set in the configuration; wins over the Name characteristic.
    public var configuredName: String?
    /// The room from the configuration, if any.
    public var room: String?
    /// The home from the configuration.
    public var home: String?

    public init(
        id: AccessoryID, services: [Service], configuredName: String? = nil, room: String? = nil,
        home: String? = nil
    ) {
        self.id = id
        self.services = services
        self.configuredName = configuredName
        self.room = room
        self.home = home
    }

    public var aid: Int { id.aid }

    /// The AccessoryInformation service (type `3E`), if present.
    public var informationService: Service? { services.first { $0.type == .Service.accessoryInformation } }

    /// The value of a string characteristic of the AccessoryInformation service.
    public func information(_ type: HAPType) -> String? {
        guard case .string(let s)? = informationService?.characteristic(ofType: type)?.value else { return nil }
        return s
    }

    /// The name to show: the configured name, else the Name characteristic, else the accessory id.
    public var name: String { configuredName ?? information(.Characteristic.name) ?? id.description }

    public var manufacturer: String? { information(.Characteristic.manufacturer) }
    public var model: String? { information(.Characteristic.model) }
    public var serialNumber: String? { information(.Characteristic.serialNumber) }
    public var firmwareRevision: String? { information(.Characteristic.firmwareRevision) }
    public var hardwareRevision: String? { information(.Characteristic.hardwareRevision) }

    /// The first service of the given type.
    public func service(ofType type: HAPType) -> Service? { services.first { $0.type == type } }

    /// The characteristic with instance id `iid`, with the service that holds it.
    public func characteristic(iid: Int) -> (service: Service, characteristic: Characteristic)? {
        for s in services { if let c = s.characteristic(iid: iid) { return (s, c) } }
        return nil
    }

    /// Every characteristic, in service order.
    public var allCharacteristics: [Characteristic] { services.flatMap(\.characteristics) }
}
