import HomeModel
import JSON

extension ServiceMappings {
    private typealias C = DiscoveryTypes.Characteristic

    /// Television → a `switch` on Active (the main entity), a `select` *Input source* on ActiveIdentifier
    /// whose options are the names of its Input Source services, and a `button` per key of RemoteKey
    /// (*Arrow up*, *Select*, *Play pause*, …). Other characteristics (PictureMode, SleepDiscoveryMode,
    /// Brightness) get their own entities.
    static func television(_ c: inout ServiceContext) {
        guard let active = c.takeReadWrite(C.active) else { return }
        c.addMain(
            "switch",
            [
                "state_topic": .string(active.state), "command_topic": .string(active.command), "payload_on": "1",
                "payload_off": "0",
            ])
        if let input = c.slots[C.activeIdentifier], input.state != nil, input.command != nil {
            let sources = inputSources(c)
            if let state = input.state, let command = input.command, !sources.isEmpty {
                _ = c.take(C.activeIdentifier)
                c.add(
                    "select", suffix: "c\(input.characteristic.iid)", name: "Input source",
                    [
                        "state_topic": .string(state), "command_topic": .string(command),
                        "options": .array(sources.map { .string($0.1) }),
                        "value_template": .string(Template.words(sources)),
                        "command_template": .string(Template.integers(sources)),
                    ])
            }
        }
        if let keys = c.take(C.remoteKey), let command = keys.command {
            let names = Dictionary(
                CharacteristicEntities.namedValues(keys.characteristic).map {
                    ($0.0, CharacteristicEntities.words($0.1))
                }
            ) { a, _ in a }
            c.entities += CharacteristicEntities.buttons(keys, command: command, in: c, names: names)
        }
    }

    /// The Input Sources of a Television (its linked services, or every Input Source of the accessory when
    /// it links none) as (Identifier, name) pairs: the ConfiguredName, else the Name, else `Input <n>`;
    /// sources that are not configured (IsConfigured 0) or hidden (CurrentVisibilityState not 0) are
    /// left out, as the Home app does. A name that repeats gets its identifier appended.
    static func inputSources(_ c: ServiceContext) -> [(Int, String)] {
        let all = c.accessory.services.filter { $0.type == DiscoveryTypes.Service.inputSource }
        let linked = all.filter { c.service.linked.contains($0.iid) }
        var sources: [(Int, String)] = []
        for source in linked.isEmpty ? all : linked {
            guard let identifier = source.characteristic(ofType: C.identifier)?.value?.int64Value else { continue }
            if source.characteristic(ofType: C.isConfigured)?.value?.int64Value == 0 { continue }
            if let visibility = source.characteristic(ofType: C.currentVisibilityState)?.value?.int64Value,
                visibility != 0
            {
                continue
            }
            var name = "Input \(identifier)"
            for type in [HAPType.Characteristic.configuredName, .Characteristic.name] {
                if case .string(let s)? = source.characteristic(ofType: type)?.value,
                    !HomeAssistantDiscovery.displayName(s).isEmpty
                {
                    name = HomeAssistantDiscovery.displayName(s)
                    break
                }
            }
            if sources.contains(where: { $0.1 == name }) { name += " (\(identifier))" }
            sources.append((Int(identifier), name))
        }
        return sources
    }

    /// Speaker (a television's or a camera's) → a `switch` *Mute*, a `number` *Volume* in percent, and
    /// the `button`s *Volume up* and *Volume down* on VolumeSelector.
    static func speaker(_ c: inout ServiceContext) {
        if let mute = c.takeReadWrite(C.mute) {
            c.add(
                "switch", suffix: "c\(mute.slot.characteristic.iid)", name: "Mute",
                [
                    "state_topic": .string(mute.state), "command_topic": .string(mute.command), "payload_on": "true",
                    "payload_off": "false",
                ])
        }
        if let volume = c.takeReadWrite(C.volume) {
            let characteristic = volume.slot.characteristic
            c.add(
                "number", suffix: "c\(characteristic.iid)", name: "Volume",
                [
                    "state_topic": .string(volume.state), "command_topic": .string(volume.command),
                    "min": .double(characteristic.minValue ?? 0), "max": .double(characteristic.maxValue ?? 100),
                    "step": .double(characteristic.minStep.flatMap { $0 > 0 ? $0 : nil } ?? 1),
                    "unit_of_measurement": "%",
                ])
        }
        if let selector = c.take(C.volumeSelector), let command = selector.command {
            c.entities += CharacteristicEntities.buttons(
                selector, command: command, in: c, names: [0: "Volume up", 1: "Volume down"])
        }
    }

    /// The first CameraRTPStreamManagement service of a camera → an `image` on its snapshot topic
    /// (`<base>/<accessory>/<service>/snapshot`, a JPEG the gateway fetches with HAP's `POST /resource`),
    /// and a `button` *Refresh snapshot* that asks for a new one; and a `camera` *Camera* on the same topic,
    /// the platform Home Assistant's HomeKit Controller gives a camera, for camera cards. Streaming is not
    /// offered.
    static func camera(_ c: inout ServiceContext) {
        guard
            c.accessory.services.first(where: { $0.type == DiscoveryTypes.Service.cameraRTPStreamManagement })?.iid
                == c.service.iid
        else { return }
        let snapshot = c.topics.snapshot(c.accessorySlug, c.serviceSlug)
        c.addMain("image", ["image_topic": .string(snapshot), "content_type": "image/jpeg"])
        c.add("camera", suffix: "camera", name: "Camera", ["topic": .string(snapshot)])
        c.add(
            "button", suffix: "snapshot", name: "Refresh snapshot",
            ["command_topic": .string(snapshot + "/get"), "payload_press": "refresh"])
    }
}
