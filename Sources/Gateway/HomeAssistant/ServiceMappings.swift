import HomeModel
import JSON

/// How each HomeKit service type becomes Home Assistant entities: one small function per kind of service.
/// A service type without a mapping, and every characteristic a mapping leaves, gets one entity per
/// readable characteristic (`CharacteristicEntities`).
///
/// Payloads match what the gateway publishes: `true`/`false` for `bool`, integers for enumerations.
enum ServiceMappings {
    typealias Mapping = @Sendable (inout ServiceContext) -> Void
    private typealias S = DiscoveryTypes.Service
    private typealias C = DiscoveryTypes.Characteristic

    /// The mapping of each service type.
    static let byType: [HAPType: Mapping] = [
        S.lightbulb: light,
        S.switch: { onOffSwitch(&$0, deviceClass: nil) },
        S.outlet: { onOffSwitch(&$0, deviceClass: "outlet") },
        S.lockMechanism: lock,
        S.thermostat: thermostat,
        S.heaterCooler: heaterCooler,
        S.windowCovering: { positionCover(&$0, deviceClass: "shade") },
        S.door: { positionCover(&$0, deviceClass: "door") },
        S.window: { positionCover(&$0, deviceClass: "window") },
        S.garageDoorOpener: garageDoor,
        S.fan: { fan(&$0, power: C.on, on: "true", off: "false") },
        S.fanV2: { fan(&$0, power: C.active, on: "1", off: "0") },
        S.valve: activeSwitch,
        S.faucet: activeSwitch,
        S.securitySystem: securitySystem,
        S.statelessProgrammableSwitch: { buttonEvent(&$0, deviceClass: "button") },
        S.doorbell: { buttonEvent(&$0, deviceClass: "doorbell") },
        S.airPurifier: { fan(&$0, power: C.active, on: "1", off: "0") },
        S.filterMaintenance: filterMaintenance,
        S.humidifierDehumidifier: humidifier,
        S.television: television,
        S.speaker: speaker,
        S.cameraRTPStreamManagement: camera,
    ]

    /// Lightbulb → light (default schema): on, brightness on HomeKit's 0–100 scale, hue and saturation as
    /// Home Assistant's `hs` through the combined `…/hs` topic (one HAP write), colour temperature in
    /// mireds with the characteristic's own range. The colour modes follow from the topics present.
    static func light(_ c: inout ServiceContext) {
        guard let on = c.takeReadWrite(C.on) else { return }
        var o: JSONObject = [
            "state_topic": .string(on.state), "command_topic": .string(on.command),
            "payload_on": "true", "payload_off": "false",
        ]
        if let b = c.takeReadWrite(C.brightness) {
            o["brightness_state_topic"] = .string(b.state)
            o["brightness_command_topic"] = .string(b.command)
            o["brightness_scale"] = .double(b.slot.characteristic.maxValue ?? 100)
        }
        if let hs = HSTopic.make(c.slots[C.hue]?.topic, c.slots[C.saturation]?.topic) {
            _ = c.take(C.hue)
            _ = c.take(C.saturation)
            o["hs_state_topic"] = .string(hs.stateTopic)
            o["hs_command_topic"] = .string(hs.commandTopic)
        }
        if let t = c.takeReadWrite(C.colorTemperature) {
            o["color_temp_state_topic"] = .string(t.state)
            o["color_temp_command_topic"] = .string(t.command)
            if let min = t.slot.characteristic.minValue { o["min_mireds"] = .double(min.rounded(.up)) }
            if let max = t.slot.characteristic.maxValue { o["max_mireds"] = .double(max.rounded(.down)) }
        }
        c.addMain("light", o)
    }

    /// Switch and Outlet → switch on On; OutletInUse is left for its own binary sensor.
    static func onOffSwitch(_ c: inout ServiceContext, deviceClass: String?) {
        guard let on = c.takeReadWrite(C.on) else { return }
        var o: JSONObject = [
            "state_topic": .string(on.state), "command_topic": .string(on.command),
            "payload_on": "true", "payload_off": "false",
        ]
        if let deviceClass { o["device_class"] = .string(deviceClass) }
        c.addMain("switch", o)
    }

    /// Valve and Faucet → switch on Active (1 active, 0 inactive).
    static func activeSwitch(_ c: inout ServiceContext) {
        guard let active = c.takeReadWrite(C.active) else { return }
        c.addMain(
            "switch",
            [
                "state_topic": .string(active.state), "command_topic": .string(active.command),
                "payload_on": "1", "payload_off": "0",
            ])
    }

    /// LockMechanism → lock: LockTargetState takes 1 (secured) and 0 (unsecured); LockCurrentState says
    /// 0 unsecured, 1 secured, 2 jammed, 3 unknown. While the current state differs from the target the
    /// lock is locking or unlocking (as Home Assistant's HomeKit Controller shows it), read from the
    /// accessory's JSON topic, which carries both.
    ///
    /// Unknown (3) makes the lock unavailable: Home Assistant's MQTT lock has no payload that shows
    /// `unknown` after `jammed`, `locking` or `unlocking` (its reset payload, `None`, clears only
    /// `is_locked`, and the state still says jammed), so an extra availability entry on the JSON topic
    /// says `offline` while the lock does not know its state; the state template still sends `None`.
    static func lock(_ c: inout ServiceContext) {
        guard let target = c.take(C.lockTargetState), let command = target.command else { return }
        var o: JSONObject = ["command_topic": .string(command), "payload_lock": "1", "payload_unlock": "0"]
        if let current = c.take(C.lockCurrentState), current.state != nil {
            let now = Template.json(c.serviceSlug, current.topic.slug)
            o["state_topic"] = .string(c.accessoryJSONTopic)
            if target.state != nil {
                let wanted = Template.json(c.serviceSlug, target.topic.slug)
                o["value_template"] = .string(
                    "{% set c = \(now) %}{% set t = \(wanted) %}"
                        + "{{ 'LOCKING' if c == 0 and t == 1 else 'UNLOCKING' if c == 1 and t == 0 else "
                        + "{0: 'UNLOCKED', 1: 'LOCKED', 2: 'JAMMED'}.get(c, 'None') }}")
            } else {
                o["value_template"] = .string("{{ {0: 'UNLOCKED', 1: 'LOCKED', 2: 'JAMMED'}.get(\(now), 'None') }}")
            }
            o["availability"] = [
                [
                    "topic": .string(c.accessoryJSONTopic),
                    // An empty payload (the accessory's topics being cleared) is no JSON: no error line for it.
                    "value_template": .string("{{ 'offline' if value_json is defined and \(now) == 3 else 'online' }}"),
                ]
            ]
        }
        c.addMain("lock", o)
    }

    /// Fan (On), Fanv2 and AirPurifier (Active) → fan, with the speed from RotationSpeed (only the
    /// accessory's own steps, see `speed`), direction from RotationDirection (0 clockwise = forward),
    /// oscillation from SwingMode, and auto/manual as preset modes from TargetFanState or
    /// TargetAirPurifierState (0 manual, 1 auto).
    static func fan(_ c: inout ServiceContext, power: HAPType, on: String, off: String) {
        guard let p = c.takeReadWrite(power) else { return }
        var o: JSONObject = [
            "state_topic": .string(p.state), "command_topic": .string(p.command),
            "payload_on": .string(on), "payload_off": .string(off),
        ]
        if let speed = c.takeReadWrite(C.rotationSpeed) {
            let offJSON = "{\"\(c.serviceSlug)\":{\"\(p.slot.topic.slug)\":\(off)}}"
            self.speed(speed, off: offJSON, in: c, into: &o)
        }
        if let direction = c.takeReadWrite(C.rotationDirection) {
            o["direction_state_topic"] = .string(direction.state)
            o["direction_command_topic"] = .string(direction.command)
            o["direction_value_template"] = .string(Template.words([(0, "forward"), (1, "reverse")]))
            o["direction_command_template"] = .string(Template.integers([(0, "forward"), (1, "reverse")]))
        }
        if let swing = c.takeReadWrite(C.swingMode) {
            o["oscillation_state_topic"] = .string(swing.state)
            o["oscillation_command_topic"] = .string(swing.command)
            o["payload_oscillation_on"] = "1"
            o["payload_oscillation_off"] = "0"
        }
        if let target = c.takeReadWrite(C.targetFanState) ?? c.takeReadWrite(C.targetAirPurifierState) {
            let allowed = target.slot.characteristic.validValues ?? [0, 1]
            let modes = [(0, "manual"), (1, "auto")].filter { allowed.contains($0.0) }
            o["preset_mode_state_topic"] = .string(target.state)
            o["preset_mode_command_topic"] = .string(target.command)
            o["preset_modes"] = .array(modes.map { .string($0.1) })
            o["preset_mode_value_template"] = .string(Template.words(modes))
            o["preset_mode_command_template"] = .string(Template.integers(modes))
        }
        c.addMain("fan", o)
    }

    /// RotationSpeed as the fan's percentage, offering only the accessory's own speeds: with a step of
    /// 25 Home Assistant offers 25, 50, 75 and 100 % (its `speed_range_min`/`speed_range_max` count the
    /// steps, and templates turn a step number into the percentage and back). Fewer than two steps give
    /// no speed control; more than 100 are offered as whole percents, which the gateway rounds to the
    /// step (docs/DESIGN.md "Values").
    ///
    /// A percentage goes to the accessory's /set as JSON: 0 % is off in Home Assistant, so it writes
    /// `off` (the power characteristic's off, as JSON) and leaves the speed alone, as Home Assistant's
    /// HomeKit Controller does; any other percentage writes only the speed, which turns nothing on (as
    /// there too: `fan.turn_on` with a percentage sends both).
    static func speed(
        _ speed: (state: String, command: String, slot: ServiceContext.Slot), off: String, in c: ServiceContext,
        into o: inout JSONObject
    ) {
        let characteristic = speed.slot.characteristic
        let low = characteristic.minValue ?? 0
        let high = characteristic.maxValue ?? 100
        guard high > low, (high - low).isFinite else { return }
        let step = characteristic.minStep.flatMap { $0 > 0 ? $0 : nil } ?? 1
        let steps = wholeNumber((high - low) / step + 1e-9, .down)
        guard steps >= 2 else { return }
        o["percentage_state_topic"] = .string(speed.state)
        o["percentage_command_topic"] = .string(c.accessorySetTopic)
        o["speed_range_min"] = 1
        // Home Assistant sends the step number, 0 only for 0 %.
        let written: String
        if low == 0, step == 1, steps <= 100 {
            o["speed_range_max"] = JSONValue(steps)  // one speed per percent: the values are the percentages
            written = "value"
        } else {
            let (count, size) = steps <= 100 ? (steps, step) : (100, (high - low) / 100)
            let f = CharacteristicValue.format
            o["speed_range_max"] = JSONValue(count)
            o["percentage_value_template"] = .string(
                "{{ ((value | float - \(f(low))) / \(f(size))) | round | int }}")
            written = "value * \(f(size)) + \(f(low))"
        }
        o["percentage_command_template"] = .string(
            "{% if value == 0 %}\(off){% else %}{\"\(c.serviceSlug)\":{\"\(speed.slot.topic.slug)\":{{ \(written) }}}}{% endif %}"
        )
    }

    /// `value` rounded by `rule`, as an `Int` within ±10^15: far beyond any real HomeKit range, and every
    /// whole number there is a Double. An accessory's metadata can say `1e300` (or a step of `1e-18`), on
    /// which `Int(_:)` traps; a mapping then gets a huge but harmless bound instead.
    static func wholeNumber(_ value: Double, _ rule: FloatingPointRoundingRule) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(max(value.rounded(rule), -1e15), 1e15))
    }

    /// SecuritySystem → alarm_control_panel: HomeKit's 0 stay, 1 away, 2 night, 3 disarmed, 4 triggered.
    static func securitySystem(_ c: inout ServiceContext) {
        guard let current = c.take(C.securitySystemCurrentState), let state = current.state,
            let target = c.take(C.securitySystemTargetState), let command = target.command
        else { return }
        let arming: [(Int, String, String)] = [
            (0, "arm_home", "payload_arm_home"), (1, "arm_away", "payload_arm_away"),
            (2, "arm_night", "payload_arm_night"),
        ]
        let allowed = target.characteristic.validValues ?? [0, 1, 2, 3]
        var o: JSONObject = [
            "state_topic": .string(state), "command_topic": .string(command),
            "value_template": .string(
                Template.words([
                    (0, "armed_home"), (1, "armed_away"), (2, "armed_night"), (3, "disarmed"), (4, "triggered"),
                ])),
            "payload_disarm": "3", "code_arm_required": false, "code_disarm_required": false,
            "code_trigger_required": false,
        ]
        o["supported_features"] = .array(arming.filter { allowed.contains($0.0) }.map { .string($0.1) })
        for (value, _, key) in arming { o[key] = .string(String(value)) }
        c.addMain("alarm_control_panel", o)
    }

    /// StatelessProgrammableSwitch and Doorbell → event, fed only by the unretained event publishes (a
    /// poll or a reconnect never fires it): 0 single, 1 double, 2 long press. A doorbell's single press is
    /// `ring`, the event type Home Assistant's doorbell event entities must offer.
    static func buttonEvent(_ c: inout ServiceContext, deviceClass: String) {
        guard let event = c.take(C.programmableSwitchEvent), let state = event.state else { return }
        let single = deviceClass == "doorbell" ? "ring" : "single_press"
        let names = [(0, single), (1, "double_press"), (2, "long_press")]
        let allowed = event.characteristic.validValues ?? [0, 1, 2]
        let present = names.filter { allowed.contains($0.0) }
        let table = Template.table(present.map { (Template.quoted(String($0.0)), Template.quoted($0.1)) })
        c.addMain(
            "event",
            [
                "state_topic": .string(state), "device_class": .string(deviceClass),
                "event_types": .array(present.map { .string($0.1) }),
                "value_template": .string(
                    "{% set t = \(table) %}{{ {'event_type': t[value]} | tojson if value in t else '' }}"),
            ])
    }
}

extension ServiceMappings {
    /// Whether a service gets entities: not AccessoryInformation (its Identify becomes a button), not a
    /// HAP protocol or labelling service, not hidden.
    static func isMappable(_ service: Service) -> Bool {
        service.type != .Service.accessoryInformation && !DiscoveryTypes.Service.skipped.contains(service.type)
            && !service.isHidden
    }

    /// AccessoryInformation's Identify → a button that writes `true` to it (the accessory blinks or beeps).
    static func identifyButton(_ slot: ServiceContext.Slot?, serviceIID: Int) -> DiscoveryEntity? {
        guard let slot, let command = slot.command else { return nil }
        return DiscoveryEntity(
            component: "button", objectID: "s\(serviceIID)_c\(slot.characteristic.iid)", name: "Identify",
            options: [
                "command_topic": .string(command), "payload_press": "true", "device_class": "identify",
                "entity_category": "diagnostic",
            ])
    }
}
