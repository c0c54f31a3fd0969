public import HomeModel

extension InMemoryAccessoryProvider {
    /// Builds an accessory from the catalog: an AccessoryInformation service (Identify, Manufacturer
    /// "hap2mqtt tests", Model, Name, SerialNumber, FirmwareRevision) and one service per type in
    /// `services` with its required characteristics and, when `optional`, its optional ones except Name
    /// and the `tlv8`/`data` control points (a Lightbulb gets Brightness, Hue, Saturation,
    /// ColorTemperature and ActiveTransitionCount).
    ///
    /// iids count from 1 in the accessory; the first service after the information is primary. Values
    /// start valid: false, the first valid value, the minimum or 0, an empty string or no bytes; a
    /// characteristic without `pr` has none.
    public static func accessory(
        aid: Int, name: String, serverID: String = "00:00:00:00:00:01", services: [HAPType], optional: Bool = true
    ) -> Accessory {
        var nextIID = 1
        func iid() -> Int {
            defer { nextIID += 1 }
            return nextIID
        }
        let information: [(HAPType, CharacteristicValue?)] = [
            (.Characteristic.identify, nil), (.Characteristic.manufacturer, .string("hap2mqtt tests")),
            (.Characteristic.model, .string("Model")), (.Characteristic.name, .string(name)),
            (.Characteristic.serialNumber, .string("SN-\(aid)")), (.Characteristic.firmwareRevision, .string("1.0.0")),
        ]
        let infoIID = iid()
        var built = [
            Service(
                iid: infoIID, type: .Service.accessoryInformation,
                characteristics: information.compactMap { Characteristic.make(iid: iid(), type: $0.0, value: $0.1) })
        ]
        for type in services where type != .Service.accessoryInformation {
            let serviceIID = iid()
            let info = HAPCatalog.service(type)
            var types = info?.required ?? []
            for t in optional ? info?.optional ?? [] : [] where t != .Characteristic.name && !types.contains(t) {
                let format = HAPCatalog.characteristic(t)?.format
                if format != .tlv8 && format != .data { types.append(t) }
            }
            let characteristics = types.compactMap { t -> Characteristic? in
                guard var c = Characteristic.make(iid: iid(), type: t) else { return nil }
                c.value = initialValue(of: c)
                return c
            }
            built.append(
                Service(iid: serviceIID, type: type, isPrimary: built.count == 1, characteristics: characteristics))
        }
        return Accessory(id: AccessoryID(serverID: serverID, aid: aid), services: built)
    }

    /// A valid starting value for a characteristic; nil when it cannot be read.
    static func initialValue(of c: Characteristic) -> CharacteristicValue? {
        guard c.isReadable else { return nil }
        switch c.format {
        case .bool: return .bool(false)
        case .uint8, .uint16, .uint32, .uint64, .int:
            if let first = c.validValues?.first { return .int(Int64(first)) }
            return .int(Int64(c.minValue ?? 0))
        case .float: return .float(c.minValue ?? 0)
        case .string: return .string("")
        case .tlv8, .data: return .data([])
        case .array: return .json("[]")
        case .dictionary: return .json("{}")
        }
    }
}
