public import JSON

/// One value of an `EVENT/1.0` notification (docs/hap-notes.md §4.8).
public struct HAPEventValue: Sendable, Hashable {
    /// The characteristic that changed, `aid.iid`.
    public var id: HAPCharacteristicID
    /// The new value as HAP JSON; nil for `null` (read it with `CharacteristicValue.decoded`).
    public var value: JSONValue?

    public init(id: HAPCharacteristicID, value: JSONValue?) {
        self.id = id
        self.value = value
    }

    /// Reads the body of an `EVENT/1.0` message, `{"characteristics":[{"aid":1,"iid":10,"value":true}]}`,
    /// into the values in the order they happened, one per characteristic, each the newest.
    ///
    /// HAP-NodeJS lists a coalesced event's items newest first ("Apple backend processes events in reverse
    /// order", HAP-NodeJS PR #964; docs/hap-notes.md §4.8, §7.7), so the items are taken from last to
    /// first, and when a characteristic appears more than once the first item (the newest) wins. Items
    /// without `aid`, `iid` or `value` are left out.
    /// - Throws: `HAPModelError.invalidJSON`, or `.unexpectedBody` when there is no `characteristics`
    ///   array.
    public static func parse(eventBody body: [UInt8]) throws(HAPModelError) -> [HAPEventValue] {
        let json: JSONValue
        do throws(JSONError) { json = try JSONValue(parsing: body) } catch { throw .invalidJSON(error) }
        guard let items = json["characteristics"]?.arrayValue else {
            throw .unexpectedBody("an event needs a \"characteristics\" array")
        }
        var values: [HAPEventValue] = []
        values.reserveCapacity(items.count)
        // A set only for long lists: most events carry one value, and a set made for every event takes 2 of
        // the 6 µs of reading one (hap2mqtt-bench hap).
        var seen = items.count > 8 ? Set<HAPCharacteristicID>() : nil
        for item in items {
            guard let id = HAPCharacteristicID(item: item), let value = item["value"] else { continue }
            if seen == nil {
                guard !values.contains(where: { $0.id == id }) else { continue }
            } else {
                guard seen?.insert(id).inserted == true else { continue }
            }
            values.append(HAPEventValue(id: id, value: value.isNull ? nil : value))
        }
        values.reverse()
        return values
    }
}
