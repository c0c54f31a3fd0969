import HomeModel

/// The values behind the `hs` topics (`<service>/hs`, `h,s`): the last hue and saturation payload of each
/// light, and the lights whose colour changed in the current step. A light's `hs` message goes out once
/// per step, when both values are in: a step that changes hue and saturation would otherwise show a
/// colour that never was (new hue, old saturation) before the right one.
struct HSValues {
    private var payloads: [CharacteristicAddress: String] = [:]
    /// Every light recorded in this step, a light once per value: listed once each by `takeChanged()`.
    private var changed: [HSTopic] = []

    /// Records the payload just published for `address`, the hue or the saturation of `hs`.
    mutating func record(_ payload: String, at address: CharacteristicAddress, of hs: HSTopic) {
        payloads[address] = payload
        // Not looked up here: a step with the colours of many lights compared each value's light with
        // every light listed before it (hap2mqtt-bench fanout).
        changed.append(hs)
    }

    /// The `h,s` payload of each light whose colour changed since the last call and whose hue and
    /// saturation are both known, in the order they changed.
    mutating func takeChanged() -> [(topic: HSTopic, payload: String)] {
        guard !changed.isEmpty else { return [] }
        defer { changed = [] }
        var lights: [HSTopic] = []
        if changed.count <= 8 {
            for hs in changed where !lights.contains(where: { $0.stateTopic == hs.stateTopic }) { lights.append(hs) }
        } else {
            var seen = Set<String>(minimumCapacity: changed.count)
            for hs in changed where seen.insert(hs.stateTopic).inserted { lights.append(hs) }
        }
        return lights.compactMap { hs in
            guard let hue = payloads[hs.hue], let saturation = payloads[hs.saturation] else { return nil }
            return (hs, "\(hue),\(saturation)")
        }
    }

    /// Forgets a light's values (its accessory is gone, or is published anew).
    mutating func forget(_ hs: HSTopic) {
        payloads[hs.hue] = nil
        payloads[hs.saturation] = nil
        changed.removeAll { $0.stateTopic == hs.stateTopic }
    }
}
