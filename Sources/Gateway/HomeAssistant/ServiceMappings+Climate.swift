import HomeModel

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// Thermostat → climate in °C: modes off/heat/cool/auto from TargetHeatingCoolingState (0–3, only the
    /// valid values the accessory allows), target and current temperature with the characteristic's range
    /// and step, the current action from CurrentHeatingCoolingState, heating and cooling thresholds as the
    /// low and high target, humidity where present.
    static func thermostat(_ c: inout ServiceContext) {
        let modes = [(0, "off"), (1, "heat"), (2, "cool"), (3, "auto")]
        guard let mode = c.takeReadWrite(C.targetHeatingCoolingState) else { return }
        let allowed = mode.slot.characteristic.validValues ?? [0, 1, 2, 3]
        var o: [String: JSONValue] = [
            "mode_state_topic": .string(mode.state), "mode_command_topic": .string(mode.command),
            "mode_state_template": .string(Template.words(modes, fallback: "off")),
            "mode_command_template": .string(Template.integers(modes)),
            "modes": .array(modes.filter { allowed.contains($0.0) }.map { .string($0.1) }),
            "temperature_unit": "C", "precision": .double(0.1),
        ]
        if let target = c.takeReadWrite(C.targetTemperature) {
            o["temperature_state_topic"] = .string(target.state)
            o["temperature_command_topic"] = .string(target.command)
            temperatureRange(target.slot.characteristic, into: &o)
        }
        if let current = c.take(C.currentTemperature)?.state { o["current_temperature_topic"] = .string(current) }
        if let action = c.take(C.currentHeatingCoolingState)?.state {
            o["action_topic"] = .string(action)
            o["action_template"] = .string(Template.words([(0, "idle"), (1, "heating"), (2, "cooling")], fallback: "idle"))
        }
        thresholds(&c, into: &o)
        if let humidity = c.take(C.currentRelativeHumidity)?.state { o["current_humidity_topic"] = .string(humidity) }
        if let target = c.takeReadWrite(C.targetRelativeHumidity) {
            o["target_humidity_state_topic"] = .string(target.state)
            o["target_humidity_command_topic"] = .string(target.command)
            if let min = target.slot.characteristic.minValue { o["min_humidity"] = .number(min) }
            if let max = target.slot.characteristic.maxValue { o["max_humidity"] = .number(max) }
        }
        c.addMain("climate", o)
    }

    /// HeaterCooler → climate: the mode needs two characteristics (Active 0 means off; otherwise
    /// TargetHeaterCoolerState 0 auto, 1 heat, 2 cool), so it is read from the accessory's JSON topic and
    /// written through `<base>/<accessory>/set` as one HAP request. The action comes from
    /// CurrentHeaterCoolerState (0 inactive, 1 idle, 2 heating, 3 cooling); the thresholds are the low and
    /// high target.
    static func heaterCooler(_ c: inout ServiceContext) {
        guard let active = c.takeReadWrite(C.active), let target = c.takeReadWrite(C.targetHeaterCoolerState) else { return }
        let modes = [(0, "auto"), (1, "heat"), (2, "cool")]
        let allowed = target.slot.characteristic.validValues ?? [0, 1, 2]
        let activeValue = Template.json(c.serviceSlug, active.slot.topic.slug)
        let targetValue = Template.json(c.serviceSlug, target.slot.topic.slug)
        let words = Template.table(modes.map { (String($0.0), Template.quoted($0.1)) })
        let integers = Template.table(modes.map { (Template.quoted($0.1), String($0.0)) })
        let service = "\"\(c.serviceSlug)\""
        let activeKey = "\"\(active.slot.topic.slug)\""
        let targetKey = "\"\(target.slot.topic.slug)\""
        var o: [String: JSONValue] = [
            "mode_state_topic": .string(c.accessoryJSONTopic),
            "mode_state_template": .string("{{ 'off' if \(activeValue) == 0 else \(words).get(\(targetValue), 'auto') }}"),
            "mode_command_topic": .string(c.accessorySetTopic),
            "mode_command_template": .string(
                "{% if value == 'off' %}{\(service):{\(activeKey):0}}"
                    + "{% else %}{\(service):{\(activeKey):1,\(targetKey):{{ \(integers)[value] }}}}{% endif %}"),
            "modes": .array([JSONValue.string("off")] + modes.filter { allowed.contains($0.0) }.map { .string($0.1) }),
            "temperature_unit": "C", "precision": .double(0.1),
        ]
        if let current = c.take(C.currentTemperature)?.state { o["current_temperature_topic"] = .string(current) }
        if let action = c.take(C.currentHeaterCoolerState)?.state {
            o["action_topic"] = .string(action)
            o["action_template"] = .string(Template.words([(0, "off"), (1, "idle"), (2, "heating"), (3, "cooling")], fallback: "idle"))
        }
        thresholds(&c, into: &o)
        c.addMain("climate", o)
    }

    /// HeatingThresholdTemperature and CoolingThresholdTemperature as the low and high target.
    private static func thresholds(_ c: inout ServiceContext, into o: inout [String: JSONValue]) {
        if let low = c.takeReadWrite(C.heatingThreshold) {
            o["temperature_low_state_topic"] = .string(low.state)
            o["temperature_low_command_topic"] = .string(low.command)
            if o["min_temp"] == nil { temperatureRange(low.slot.characteristic, into: &o) }
        }
        if let high = c.takeReadWrite(C.coolingThreshold) {
            o["temperature_high_state_topic"] = .string(high.state)
            o["temperature_high_command_topic"] = .string(high.command)
            if let max = high.slot.characteristic.maxValue { o["max_temp"] = .number(max) }
        }
    }

    /// `min_temp`, `max_temp` and `temp_step` from a temperature characteristic's metadata.
    private static func temperatureRange(_ characteristic: Characteristic, into o: inout [String: JSONValue]) {
        if let min = characteristic.minValue { o["min_temp"] = .number(min) }
        if let max = characteristic.maxValue { o["max_temp"] = .number(max) }
        if let step = characteristic.minStep, step > 0 { o["temp_step"] = .number(step) }
    }
}
