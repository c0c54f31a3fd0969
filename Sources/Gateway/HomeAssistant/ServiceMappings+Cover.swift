import HomeModel
import JSON

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// WindowCovering, Door and Window → cover with position: CurrentPosition and TargetPosition in
    /// percent (HomeKit's and Home Assistant's 0 closed, 100 open); open and close set the target to the
    /// ends of its range. With HoldPosition, stop writes it, and open, close and stop go through the
    /// accessory's `set` topic as JSON (Home Assistant's cover has one command topic). With PositionState
    /// the state (opening, closing, or open/closed from the position) is read from the accessory's JSON
    /// topic, which carries both values at once. The tilt is the horizontal tilt (else the vertical one),
    /// see `tilt`.
    static func positionCover(_ c: inout ServiceContext, deviceClass: String) {
        guard let target = c.takeReadWrite(C.targetPosition), let current = c.take(C.currentPosition),
            let position = current.state
        else { return }
        let closed = target.slot.characteristic.minValue ?? 0
        let open = target.slot.characteristic.maxValue ?? 100
        let f = CharacteristicValue.format
        var o: JSONObject = [
            "device_class": .string(deviceClass),
            "position_topic": .string(position), "set_position_topic": .string(target.command),
            "command_topic": .string(target.command),
            "payload_open": .string(f(open)), "payload_close": .string(f(closed)),
            "payload_stop": .null, "position_open": .double(open), "position_closed": .double(closed),
        ]
        if let hold = c.take(C.holdPosition), hold.command != nil {
            let service = "{\"\(c.serviceSlug)\":{"
            o["command_topic"] = .string(c.accessorySetTopic)
            o["payload_open"] = .string(service + "\"\(target.slot.topic.slug)\":\(f(open))}}")
            o["payload_close"] = .string(service + "\"\(target.slot.topic.slug)\":\(f(closed))}}")
            o["payload_stop"] = .string(service + "\"\(hold.topic.slug)\":true}}")
        }
        if let movement = c.take(C.positionState), movement.state != nil {
            let moving = Template.json(c.serviceSlug, movement.topic.slug)
            let at = Template.json(c.serviceSlug, current.topic.slug)
            o["state_topic"] = .string(c.accessoryJSONTopic)
            o["value_template"] = .string(
                "{{ 'closing' if \(moving) == 0 else 'opening' if \(moving) == 1 else "
                    + "('closed' if \(at) == \(f(closed)) else 'open') }}")
        }
        tilt(&c, into: &o)
        c.addMain("cover", o)
    }

    /// The cover's tilt from TargetHorizontalTiltAngle (else TargetVerticalTiltAngle) and its current
    /// angle, in arc degrees: Home Assistant's tilt 0–100 % spans the characteristic's range (-90° to 90°
    /// is 0 to 100 %, 0° is 50 %); opening the tilt sets 0° (slats level) when the range holds it, closing
    /// it sets the minimum. The other direction's tilt, if any, is left for its own `number`.
    private static func tilt(_ c: inout ServiceContext, into o: inout JSONObject) {
        let pairs = [(C.targetHorizontalTilt, C.currentHorizontalTilt), (C.targetVerticalTilt, C.currentVerticalTilt)]
        guard let (targetType, currentType) = pairs.first(where: { c.slots[$0.0]?.command != nil }),
            let target = c.takeReadWrite(targetType)
        else { return }
        let characteristic = target.slot.characteristic
        let low = characteristic.minValue ?? -90
        let high = characteristic.maxValue ?? 90
        o["tilt_command_topic"] = .string(target.command)
        o["tilt_status_topic"] = .string(c.take(currentType)?.state ?? target.state)
        o["tilt_min"] = JSONValue(wholeNumber(low, .up))
        o["tilt_max"] = JSONValue(wholeNumber(high, .down))
        o["tilt_closed_value"] = JSONValue(wholeNumber(low, .up))
        o["tilt_opened_value"] = JSONValue(low <= 0 && 0 <= high ? 0 : wholeNumber(high, .down))
    }

    /// GarageDoorOpener → cover with `device_class: garage`: TargetDoorState takes 0 (open) and 1 (closed);
    /// CurrentDoorState says 0 open, 1 closed, 2 opening, 3 closing, 4 stopped.
    static func garageDoor(_ c: inout ServiceContext) {
        guard let target = c.take(C.targetDoorState), let command = target.command else { return }
        var o: JSONObject = [
            "device_class": "garage", "command_topic": .string(command),
            "payload_open": "0", "payload_close": "1", "payload_stop": .null,
        ]
        if let current = c.take(C.currentDoorState), let state = current.state {
            o["state_topic"] = .string(state)
            o["value_template"] = .string(
                Template.words([(0, "open"), (1, "closed"), (2, "opening"), (3, "closing"), (4, "stopped")]))
        }
        c.addMain("cover", o)
    }
}
