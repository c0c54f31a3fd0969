extension CharacteristicValue {
    /// The payload of an empty value (an empty string, empty `tlv8`/`data`): `""`. An empty retained message
    /// deletes its topic (MQTT 5 §3.3.1.3), so an empty value gets this one representation that stays on
    /// the broker; `/set` reads it back as the empty value (docs/DESIGN.md "Values").
    public static let emptyPayload = "\"\""

    /// The value as an MQTT state payload (docs/DESIGN.md "Topics"): `true`/`false`, integers plain, floats in
    /// the shortest form that reads back exactly (`21.5`, `21` for 21.0), strings raw, `tlv8`/`data` in
    /// base64, `array`/`dict` as their JSON text; an empty value as `emptyPayload`, never as nothing.
    public var mqttPayload: String {
        let text = description
        return text.isEmpty ? CharacteristicValue.emptyPayload : text
    }
}
