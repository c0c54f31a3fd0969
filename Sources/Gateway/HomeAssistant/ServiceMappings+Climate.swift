import HomeModel
import JSON

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// Thermostat → climate in °C: modes off/heat/cool/auto from TargetHeatingCoolingState (0–3, only the
    /// valid values the accessory allows; HomeKit's Auto is Home Assistant's `heat_cool` when the
    /// thermostat has thresholds, a range to keep between), target and current temperature with the
    /// characteristic's range and step, the current action from CurrentHeatingCoolingState, heating and
    /// cooling thresholds as the low and high target, humidity where present, and TargetFanState as the
    /// fan modes `on` (0, manual) and `auto` (1), as Home Assistant's HomeKit Controller offers them.
    static func thermostat(_ c: inout ServiceContext) {
        let auto = c.has(C.heatingThreshold) || c.has(C.coolingThreshold) ? "heat_cool" : "auto"
        let modes = [(0, "off"), (1, "heat"), (2, "cool"), (3, auto)]
        guard let mode = c.takeReadWrite(C.targetHeatingCoolingState) else { return }
        let allowed = mode.slot.characteristic.validValues ?? [0, 1, 2, 3]
        var o: JSONObject = [
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
        if let fan = c.takeReadWrite(C.targetFanState) {
            let fanModes = [(0, "on"), (1, "auto")]
            o["fan_mode_state_topic"] = .string(fan.state)
            o["fan_mode_command_topic"] = .string(fan.command)
            o["fan_modes"] = .array(fanModes.map { .string($0.1) })
            o["fan_mode_state_template"] = .string(Template.words(fanModes, fallback: "auto"))
            o["fan_mode_command_template"] = .string(Template.integers(fanModes))
        }
        if let action = c.take(C.currentHeatingCoolingState)?.state {
            o["action_topic"] = .string(action)
            o["action_template"] = .string(
                Template.words([(0, "idle"), (1, "heating"), (2, "cooling")], fallback: "idle"))
        }
        thresholds(&c, into: &o)
        if let humidity = c.take(C.currentRelativeHumidity)?.state { o["current_humidity_topic"] = .string(humidity) }
        if let target = c.takeReadWrite(C.targetRelativeHumidity) {
            o["target_humidity_state_topic"] = .string(target.state)
            o["target_humidity_command_topic"] = .string(target.command)
            if let min = target.slot.characteristic.minValue { o["min_humidity"] = .double(min) }
            if let max = target.slot.characteristic.maxValue { o["max_humidity"] = .double(max) }
        }
        c.addMain("climate", o)
    }

    /// HeaterCooler → climate: the mode needs two characteristics (Active 0 means off; otherwise
    /// TargetHeaterCoolerState 0 auto, 1 heat, 2 cool), so it is read from the accessory's JSON topic and
    /// written through `<base>/<accessory>/set` as one HAP request. The action comes from
    /// CurrentHeaterCoolerState (0 inactive, 1 idle, 2 heating, 3 cooling). HomeKit has only the two
    /// thresholds; as in Home Assistant's HomeKit Controller, heat and cool mode show one target (the
    /// heating or the cooling threshold) and auto mode shows both as the low and high target. The fan
    /// speed (RotationSpeed) is offered as the fan modes off/low/medium/high, SwingMode as swing on/off.
    static func heaterCooler(_ c: inout ServiceContext) {
        guard c.has(C.targetHeaterCoolerState) else { return }
        // Some accessories keep Active on the Fan their heater-cooler links (HomeSpan's Daikin bridge).
        let activeSlot: (service: String, slot: ServiceContext.Slot)
        if let own = c.slots[C.active], own.state != nil, own.command != nil {
            _ = c.take(C.active)
            activeSlot = (c.serviceSlug, own)
        } else if let linked = c.linkedSlots.lazy.compactMap({ l in
            l.slots[C.active].flatMap { $0.state != nil && $0.command != nil ? (l.slug, $0) : nil }
        }).first {
            activeSlot = linked
        } else {
            return
        }
        // A target state that cannot be written (a bridge that only reports it) still shows the mode; a
        // choice then only switches Active.
        guard let targetSlot = c.take(C.targetHeaterCoolerState), targetSlot.state != nil else { return }
        let target = (slot: targetSlot, writable: targetSlot.command != nil)
        let auto = c.has(C.heatingThreshold) && c.has(C.coolingThreshold) ? "heat_cool" : "auto"
        let modes = [(0, auto), (1, "heat"), (2, "cool")]
        let allowed = target.slot.characteristic.validValues ?? [0, 1, 2]
        let activeValue = Template.json(activeSlot.service, activeSlot.slot.topic.slug)
        let targetValue = Template.json(c.serviceSlug, target.slot.topic.slug)
        let words = Template.table(modes.map { (String($0.0), Template.quoted($0.1)) })
        let integers = Template.table(modes.map { (Template.quoted($0.1), String($0.0)) })
        let service = "\"\(c.serviceSlug)\""
        let activeKey = "\"\(activeSlot.slot.topic.slug)\""
        let targetKey = "\"\(target.slot.topic.slug)\""
        let on: String
        let off: String
        if !target.writable {
            let owner = "\"\(activeSlot.service)\""
            off = "{\(owner):{\(activeKey):0}}"
            on = "{\(owner):{\(activeKey):1}}"
        } else if activeSlot.service == c.serviceSlug {
            off = "{\(service):{\(activeKey):0}}"
            on = "{\(service):{\(activeKey):1,\(targetKey):{{ \(integers)[value] }}}}"
        } else {
            let other = "\"\(activeSlot.service)\""
            off = "{\(other):{\(activeKey):0}}"
            on = "{\(other):{\(activeKey):1},\(service):{\(targetKey):{{ \(integers)[value] }}}}"
        }
        var o: JSONObject = [
            "mode_state_topic": .string(c.accessoryJSONTopic),
            "mode_state_template": .string(
                "{{ 'off' if \(activeValue) == 0 else \(words).get(\(targetValue), '\(auto)') }}"),
            "mode_command_topic": .string(c.accessorySetTopic),
            "mode_command_template": .string("{% if value == 'off' %}\(off){% else %}\(on){% endif %}"),
            "modes": .array([JSONValue.string("off")] + modes.filter { allowed.contains($0.0) }.map { .string($0.1) }),
            "temperature_unit": "C", "precision": .double(0.1),
        ]
        if let current = c.take(C.currentTemperature)?.state { o["current_temperature_topic"] = .string(current) }
        if let action = c.take(C.currentHeaterCoolerState)?.state {
            o["action_topic"] = .string(action)
            o["action_template"] = .string(
                Template.words([(0, "off"), (1, "idle"), (2, "heating"), (3, "cooling")], fallback: "idle"))
        }
        heaterCoolerTargets(&c, target: targetValue, into: &o)
        if let speed = c.takeReadWrite(C.rotationSpeed) { fanModes(speed, into: &o) }
        if let swing = c.takeReadWrite(C.swingMode) {
            o["swing_mode_state_topic"] = .string(swing.state)
            o["swing_mode_command_topic"] = .string(swing.command)
            o["swing_modes"] = ["on", "off"]
            o["swing_mode_state_template"] = .string(Template.words([(0, "off"), (1, "on")]))
            o["swing_mode_command_template"] = .string(Template.integers([(0, "off"), (1, "on")]))
        }
        c.addMain("climate", o)
    }

    /// The heater-cooler's targets from its thresholds, all read from the accessory's JSON topic: the one
    /// target of heat mode (HeatingThreshold) or cool mode (CoolingThreshold), written to the threshold of
    /// the mode Home Assistant shows (`this.state` in the command template); and the low and high target
    /// in auto mode. Outside its mode a target is `None`, which Home Assistant shows as no value.
    private static func heaterCoolerTargets(_ c: inout ServiceContext, target: String, into o: inout JSONObject) {
        let heating = c.takeReadWrite(C.heatingThreshold)
        let cooling = c.takeReadWrite(C.coolingThreshold)
        guard heating != nil || cooling != nil else { return }
        let service = "\"\(c.serviceSlug)\""
        func value(_ t: (state: String, command: String, slot: ServiceContext.Slot)?) -> String {
            t.map { Template.json(c.serviceSlug, $0.slot.topic.slug) } ?? "'None'"
        }
        func write(_ t: (state: String, command: String, slot: ServiceContext.Slot)) -> String {
            "{\(service):{\"\(t.slot.topic.slug)\":{{ value }}}}"
        }
        o["temperature_state_topic"] = .string(c.accessoryJSONTopic)
        o["temperature_state_template"] = .string(
            "{{ \(value(heating)) if \(target) == 1 else \(value(cooling)) if \(target) == 2 else 'None' }}")
        o["temperature_command_topic"] = .string(c.accessorySetTopic)
        switch (heating, cooling) {
        case (let heat?, let cool?):
            o["temperature_command_template"] = .string(
                "{% if this.state == 'cool' %}\(write(cool)){% else %}\(write(heat)){% endif %}")
        case (let only?, nil), (nil, let only?):
            o["temperature_command_template"] = .string(write(only))
        case (nil, nil):
            break
        }
        if let heat = heating {
            o["temperature_low_state_topic"] = .string(c.accessoryJSONTopic)
            o["temperature_low_state_template"] = .string("{{ \(value(heat)) if \(target) == 0 else 'None' }}")
            o["temperature_low_command_topic"] = .string(heat.command)
        }
        if let cool = cooling {
            o["temperature_high_state_topic"] = .string(c.accessoryJSONTopic)
            o["temperature_high_state_template"] = .string("{{ \(value(cool)) if \(target) == 0 else 'None' }}")
            o["temperature_high_command_topic"] = .string(cool.command)
        }
        for threshold in [heating, cooling].compactMap({ $0 }) {
            temperatureRange(threshold.slot.characteristic, into: &o)
        }
    }

    /// RotationSpeed as the fan modes off, low, medium and high (0, a third, two thirds and all of its
    /// range, each on the characteristic's step; a level that falls on the one before is left out), as
    /// Home Assistant's HomeKit Controller offers them. A speed shows as the level nearest to it.
    private static func fanModes(
        _ speed: (state: String, command: String, slot: ServiceContext.Slot), into o: inout JSONObject
    ) {
        let characteristic = speed.slot.characteristic
        let low = characteristic.minValue ?? 0
        let high = characteristic.maxValue ?? 100
        guard high > low else { return }
        let f = CharacteristicValue.format
        var levels: [(name: String, value: Double)] = []
        for (name, share) in [("off", 0.0), ("low", 1.0 / 3), ("medium", 2.0 / 3), ("high", 1.0)] {
            let value = min(high, max(low, characteristic.roundedToStep(low + share * (high - low))))
            if levels.last?.value != value { levels.append((name, value)) }
        }
        guard levels.count > 1 else { return }
        o["fan_mode_state_topic"] = .string(speed.state)
        o["fan_mode_command_topic"] = .string(speed.command)
        o["fan_modes"] = .array(levels.map { .string($0.name) })
        var choice = "'\(levels[levels.count - 1].name)'"
        for (level, next) in zip(levels, levels.dropFirst()).reversed() {
            choice = "'\(level.name)' if v < \(f((level.value + next.value) / 2)) else \(choice)"
        }
        o["fan_mode_state_template"] = .string("{% set v = value | float %}{{ \(choice) }}")
        o["fan_mode_command_template"] = .string(
            "{{ \(Template.table(levels.map { (Template.quoted($0.name), f($0.value)) }))[value] }}")
    }

    /// HeatingThresholdTemperature and CoolingThresholdTemperature as the low and high target.
    private static func thresholds(_ c: inout ServiceContext, into o: inout JSONObject) {
        if let low = c.takeReadWrite(C.heatingThreshold) {
            o["temperature_low_state_topic"] = .string(low.state)
            o["temperature_low_command_topic"] = .string(low.command)
            temperatureRange(low.slot.characteristic, into: &o)
        }
        if let high = c.takeReadWrite(C.coolingThreshold) {
            o["temperature_high_state_topic"] = .string(high.state)
            o["temperature_high_command_topic"] = .string(high.command)
            temperatureRange(high.slot.characteristic, into: &o)
        }
    }

    /// Widens `min_temp`, `max_temp` and `temp_step` to a temperature characteristic's metadata: Home
    /// Assistant's one range must hold every target the climate writes (a heating threshold's low end and
    /// a cooling threshold's high end), the finest step of them.
    private static func temperatureRange(_ characteristic: Characteristic, into o: inout JSONObject) {
        if let min = characteristic.minValue {
            if case .double(let old)? = o["min_temp"], old <= min {} else { o["min_temp"] = .double(min) }
        }
        if let max = characteristic.maxValue {
            if case .double(let old)? = o["max_temp"], old >= max {} else { o["max_temp"] = .double(max) }
        }
        if let step = characteristic.minStep, step > 0 {
            if case .double(let old)? = o["temp_step"], old <= step {} else { o["temp_step"] = .double(step) }
        }
    }
}
