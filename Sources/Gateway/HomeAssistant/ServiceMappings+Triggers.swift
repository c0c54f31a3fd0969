import HomeModel

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// The component of Home Assistant's MQTT device triggers (`<prefix>/device_automation/…/config`).
    static let deviceAutomation = "device_automation"

    /// Device triggers beside the `event` entity of a StatelessProgrammableSwitch or Doorbell (Home
    /// Assistant's "MQTT Device trigger"), so that automations can start from "button 2 double press"
    /// in the device page: one per press the accessory allows, on the same unretained event topic,
    /// matching its payload (0 single, 1 double, 2 long press). The subtype is `button_<n>` by the
    /// service's number among the accessory's buttons (1 when alone), or `doorbell`.
    static func deviceTriggers(_ c: ServiceContext, number: Int?) -> [DiscoveryEntity] {
        let doorbell = c.service.type == DiscoveryTypes.Service.doorbell
        guard doorbell || c.service.type == DiscoveryTypes.Service.statelessProgrammableSwitch,
            let event = c.slots[C.programmableSwitchEvent], let topic = event.state
        else { return [] }
        let subtype = doorbell ? "doorbell" : "button_\(number ?? 1)"
        let allowed = event.characteristic.validValues ?? [0, 1, 2]
        let presses = [
            (0, "button_short_press", "single"), (1, "button_double_press", "double"), (2, "button_long_press", "long"),
        ]
        return presses.filter { allowed.contains($0.0) }.map { value, type, suffix in
            DiscoveryEntity(
                component: deviceAutomation, objectID: "s\(c.service.iid)_\(suffix)", name: .null,
                options: [
                    "automation_type": "trigger", "topic": .string(topic), "type": .string(type),
                    "subtype": .string(subtype),
                    "payload": .string(String(value)), "qos": 1,
                ])
        }
    }
}
