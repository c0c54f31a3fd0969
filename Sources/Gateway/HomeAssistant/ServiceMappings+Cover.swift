import HomeModel

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// WindowCovering, Door and Window → cover with position: CurrentPosition and TargetPosition in
    /// percent (HomeKit's and Home Assistant's 0 closed, 100 open); open and close set the target to the
    /// ends of its range. HomeKit has no stop on the target, so none is offered. With PositionState the
    /// state (opening, closing, or open/closed from the position) is read from the accessory's JSON topic,
    /// which carries both values at once.
    static func positionCover(_ c: inout ServiceContext, deviceClass: String) {
        guard let target = c.takeReadWrite(C.targetPosition), let current = c.take(C.currentPosition), let position = current.state
        else { return }
        let closed = target.slot.characteristic.minValue ?? 0
        let open = target.slot.characteristic.maxValue ?? 100
        var o: [String: JSONValue] = [
            "device_class": .string(deviceClass),
            "position_topic": .string(position), "set_position_topic": .string(target.command),
            "command_topic": .string(target.command),
            "payload_open": .string(CharacteristicValue.format(open)), "payload_close": .string(CharacteristicValue.format(closed)),
            "payload_stop": .null, "position_open": .number(open), "position_closed": .number(closed),
        ]
        if let movement = c.take(C.positionState), movement.state != nil {
            let moving = Template.json(c.serviceSlug, movement.topic.slug)
            let at = Template.json(c.serviceSlug, current.topic.slug)
            o["state_topic"] = .string(c.accessoryJSONTopic)
            o["value_template"] = .string(
                "{{ 'closing' if \(moving) == 0 else 'opening' if \(moving) == 1 else "
                    + "('closed' if \(at) == \(CharacteristicValue.format(closed)) else 'open') }}")
        }
        c.addMain("cover", o)
    }

    /// GarageDoorOpener → cover with `device_class: garage`: TargetDoorState takes 0 (open) and 1 (closed);
    /// CurrentDoorState says 0 open, 1 closed, 2 opening, 3 closing, 4 stopped.
    static func garageDoor(_ c: inout ServiceContext) {
        guard let target = c.take(C.targetDoorState), let command = target.command else { return }
        var o: [String: JSONValue] = [
            "device_class": "garage", "command_topic": .string(command),
            "payload_open": "0", "payload_close": "1", "payload_stop": .null,
        ]
        if let current = c.take(C.currentDoorState), let state = current.state {
            o["state_topic"] = .string(state)
            o["value_template"] = .string(Template.words([(0, "open"), (1, "closed"), (2, "opening"), (3, "closing"), (4, "stopped")]))
        }
        c.addMain("cover", o)
    }
}
