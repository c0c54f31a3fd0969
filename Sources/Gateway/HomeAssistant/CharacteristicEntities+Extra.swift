import HomeModel
import JSON

extension CharacteristicEntities {
    private typealias C = DiscoveryTypes.Characteristic

    /// A vendor's characteristic read in one place and written through another of the same service (its
    /// entry's `through`), as one `select`: Ecobee's Current mode shows home, sleep or away, and a choice
    /// is written to its hold-schedule characteristic, as Home Assistant's HomeKit Controller does.
    static func vendorPairs(_ c: inout ServiceContext) {
        for slot in c.untaken {
            guard let entry = VendorCharacteristics.entry(slot.characteristic.type), let through = entry.writtenThrough,
                let state = slot.state, let target = c.slots[through], let command = target.command,
                !entry.options.isEmpty
            else { continue }
            _ = c.take(slot.characteristic.type)
            _ = c.take(through)
            var o: JSONObject = [
                "state_topic": .string(state), "command_topic": .string(command),
                "options": .array(entry.options.map { .string($0.1) }),
                "value_template": .string(Template.words(entry.options, fallback: "None")),
                "command_template": .string(Template.integers(entry.options)),
            ]
            if let category = entry.category { o["entity_category"] = .string(category) }
            c.add("select", suffix: "c\(slot.characteristic.iid)", name: entry.name, o)
        }
    }

    /// The current temperature and humidity of a service that is no temperature or humidity sensor (a
    /// thermostat, a heater-cooler, a humidifier) as sensors of their own besides the mapping's entity, as
    /// Home Assistant's HomeKit Controller makes them: history and statistics want a sensor.
    static func measurementSensors(_ c: ServiceContext) -> [DiscoveryEntity] {
        let sensorServices = [DiscoveryTypes.Service.temperatureSensor, DiscoveryTypes.Service.humiditySensor]
        guard !sensorServices.contains(c.service.type) else { return [] }
        return [C.currentTemperature, C.currentRelativeHumidity].compactMap { type in
            guard let slot = c.slots[type], c.isTaken(slot.characteristic.iid) else { return nil }
            return sensor(slot, in: c, isMain: false)
        }
    }
}
