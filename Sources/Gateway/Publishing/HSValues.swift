import HomeModel

/// The values behind the `hs` topics (`<service>/hs`, `h,s`): the last hue and saturation payload of each
/// light, and the lights whose colour changed in the current step. A light's `hs` message goes out once
/// per step, when both values are in: a step that changes hue and saturation would otherwise show a
/// colour that never was (new hue, old saturation) before the right one.
struct HSValues {
    private var payloads: [CharacteristicAddress: String] = [:]
    private var changed: [HSTopic] = []

    /// Records the payload just published for `address`, the hue or the saturation of `hs`.
    mutating func record(_ payload: String, at address: CharacteristicAddress, of hs: HSTopic) {
        payloads[address] = payload
        if !changed.contains(where: { $0.stateTopic == hs.stateTopic }) { changed.append(hs) }
    }

    /// The `h,s` payload of each light whose colour changed since the last call and whose hue and
    /// saturation are both known, in the order they changed.
    mutating func takeChanged() -> [(topic: HSTopic, payload: String)] {
        guard !changed.isEmpty else { return [] }
        defer { changed = [] }
        return changed.compactMap { hs in
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
