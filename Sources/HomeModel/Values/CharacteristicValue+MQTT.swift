extension CharacteristicValue {
    /// The value as an MQTT state payload (docs/DESIGN.md "Topics"): `true`/`false`, integers plain, floats in
    /// the shortest form that reads back exactly (`21.5`, `21` for 21.0), strings raw, `tlv8`/`data` in
    /// base64, `array`/`dict` as their JSON text.
    public var mqttPayload: String { description }
}
