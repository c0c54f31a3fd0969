public import HomeModel

/// The combined hue and saturation topic of a service that has both, readable and writable (Home
/// Assistant's `hs` colour): `<base>/<accessory>/<service>/hs` carries `h,s` (retained, republished when
/// either changes), and `<base>/<accessory>/<service>/hs/set` takes `h,s` and writes both characteristics
/// in ONE HAP request, so the lamp never shows a half-changed colour.
public struct HSTopic: Sendable, Hashable {
    /// `<base>/<accessory>/<service>/hs`.
    public let stateTopic: String
    /// The Hue characteristic (arc degrees, 0–360).
    public let hue: CharacteristicAddress
    /// The Saturation characteristic (percent, 0–100).
    public let saturation: CharacteristicAddress

    /// `<base>/<accessory>/<service>/hs/set`.
    public var commandTopic: String { stateTopic + "/set" }

    /// The combined topic of a service's Hue and Saturation topics; nil unless both exist in the same
    /// service and can be read and written.
    public static func make(_ hue: CharacteristicTopic?, _ saturation: CharacteristicTopic?) -> HSTopic? {
        guard let hue, let saturation, hue.isReadable, hue.isWritable, saturation.isReadable, saturation.isWritable,
            hue.address.accessory == saturation.address.accessory, hue.serviceSlug == saturation.serviceSlug,
            hue.stateTopic.hasSuffix("/" + hue.slug)
        else { return nil }
        return HSTopic(
            stateTopic: String(hue.stateTopic.dropLast(hue.slug.count)) + "hs", hue: hue.address,
            saturation: saturation.address)
    }
}

extension AccessoryLayout {
    /// The combined `hs` topic of every service with Hue and Saturation.
    public var hsTopics: [HSTopic] {
        services.compactMap { service in
            HSTopic.make(
                service.characteristics.first { $0.type == .Characteristic.hue },
                service.characteristics.first { $0.type == .Characteristic.saturation })
        }
    }
}
