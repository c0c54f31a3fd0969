import HomeModel
import Testing

/// The HAP type of a short or long UUID text, failing the test when it is none.
func hapType(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> HAPType {
    try #require(HAPType(text), "not a HAP type: \(text)", sourceLocation: sourceLocation)
}

/// A characteristic of a catalog type with the catalog's metadata, failing the test when the type is unknown.
func catalogCharacteristic(
    _ short: String, iid: Int = 10, value: CharacteristicValue? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Characteristic {
    try #require(
        Characteristic.make(iid: iid, type: try hapType(short, sourceLocation: sourceLocation), value: value),
        "no catalog characteristic \(short)", sourceLocation: sourceLocation)
}

/// The error a throwing expression threw, or nil when it did not throw.
func valueError(_ body: () throws(ValueError) -> CharacteristicValue) -> ValueError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
