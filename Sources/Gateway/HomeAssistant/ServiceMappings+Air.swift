import HomeModel
import JSON

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// FilterMaintenance (an air purifier's filter) → a `binary_sensor` (problem: on when the filter needs
    /// changing) on FilterChangeIndication, and a `button` *Reset* on ResetFilterIndication. FilterLifeLevel
    /// is left for its own sensor (percent).
    static func filterMaintenance(_ c: inout ServiceContext) {
        guard let change = c.take(C.filterChangeIndication), let state = change.state else { return }
        c.addMain(
            "binary_sensor",
            ["state_topic": .string(state), "device_class": "problem", "payload_on": "1", "payload_off": "0"])
        if let reset = c.take(C.resetFilterIndication), let command = reset.command {
            let value = reset.characteristic.minValue.map(CharacteristicValue.format) ?? "1"
            c.add(
                "button", suffix: "c\(reset.characteristic.iid)", name: "Reset",
                ["command_topic": .string(command), "payload_press": .string(value)])
        }
    }

    /// HumidifierDehumidifier → `humidifier`: on/off on Active; the modes `normal` and `auto` from
    /// TargetHumidifierDehumidifierState (see below), written together with Active 1 through the
    /// accessory's `set` topic, as Home Assistant's HomeKit Controller does; the action from
    /// CurrentHumidifierDehumidifierState; the current humidity.
    ///
    /// HomeKit has no single target humidity but a threshold per direction, and Home Assistant's humidifier
    /// has one target: as in HomeKit Controller, the humidifying threshold makes the main entity (device class
    /// humidifier) and the dehumidifying one a second entity *Dehumidifier*, each with its threshold's range.
    /// Without a threshold the service is a `switch` on Active.
    static func humidifier(_ c: inout ServiceContext) {
        guard let active = c.takeReadWrite(C.active) else { return }
        let thresholds = [(C.humidifierThreshold, "humidifier"), (C.dehumidifierThreshold, "dehumidifier")].compactMap {
            type, deviceClass in
            c.takeReadWrite(type).map { (threshold: $0, deviceClass: deviceClass) }
        }
        guard !thresholds.isEmpty else {
            c.addMain(
                "switch",
                [
                    "state_topic": .string(active.state), "command_topic": .string(active.command), "payload_on": "1",
                    "payload_off": "0",
                ])
            return
        }
        var o: JSONObject = [
            "state_topic": .string(active.state), "command_topic": .string(active.command), "payload_on": "1",
            "payload_off": "0",
        ]
        let target = c.takeReadWrite(C.targetHumidifierDehumidifierState)
        if let action = c.take(C.currentHumidifierDehumidifierState)?.state {
            o["action_topic"] = .string(action)
            o["action_template"] = .string(
                Template.words([(0, "off"), (1, "idle"), (2, "humidifying"), (3, "drying")], fallback: "idle"))
        }
        if let current = c.take(C.currentRelativeHumidity)?.state { o["current_humidity_topic"] = .string(current) }
        for (index, entry) in thresholds.enumerated() {
            var options = o
            let characteristic = entry.threshold.slot.characteristic
            if let target {
                // Home Assistant's two modes: `normal` is this entity's own direction (1 humidifying, 2
                // dehumidifying), `auto` is HomeKit's either-way 0; both write Active 1 with the state. Only
                // the ones the accessory allows (a humidifier that only humidifies has `normal` alone).
                let own = entry.deviceClass == "humidifier" ? 1 : 2
                let allowed = target.slot.characteristic.validValues ?? [0, 1, 2]
                let modes = [(own, "normal"), (0, "auto")].filter { allowed.contains($0.0) }
                if !modes.isEmpty {
                    let integers = Template.table(modes.map { (Template.quoted($0.1), String($0.0)) })
                    options["mode_state_topic"] = .string(target.state)
                    options["mode_state_template"] = .string("{{ 'auto' if value == '0' else 'normal' }}")
                    options["mode_command_topic"] = .string(c.accessorySetTopic)
                    options["mode_command_template"] = .string(
                        "{\"\(c.serviceSlug)\":{\"\(active.slot.topic.slug)\":1,\"\(target.slot.topic.slug)\":{{ \(integers)[value] }}}}"
                    )
                    options["modes"] = .array(modes.map { .string($0.1) })
                }
            }
            options["device_class"] = .string(entry.deviceClass)
            options["target_humidity_state_topic"] = .string(entry.threshold.state)
            options["target_humidity_command_topic"] = .string(entry.threshold.command)
            // Percent: Home Assistant's humidifier knows no more than 0-100.
            options["min_humidity"] = JSONValue(wholeNumber(max(characteristic.minValue ?? 0, 0), .up))
            options["max_humidity"] = JSONValue(wholeNumber(min(characteristic.maxValue ?? 100, 100), .down))
            if index == 0 {
                c.addMain("humidifier", options)
            } else {
                c.add("humidifier", suffix: "c\(characteristic.iid)", name: "Dehumidifier", options)
            }
        }
    }
}
