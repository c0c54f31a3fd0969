import HomeModel
import JSON

/// The words the page shows for types, values and units, from the HAP catalogue (`HAPCatalog`'s labels),
/// so that the page holds no list of names of its own; and the accessories its options exclude, so that
/// the page can bring one back.
extension WebPage {
    /// `GET /api/catalog`: `{"services":{"43":"Light",…},"characteristics":{"1D":{"label":"Lock",
    /// "values":{"0":"Unlocked",…}},…},"units":{"celsius":"°C",…}}`, keyed by the short type the
    /// accessories' `type` fields carry.
    static let catalogJSON: String = {
        var services = JSONObject()
        for service in HAPCatalog.services {
            services.append(service.type.shortForm, .string(HAPCatalog.serviceLabel(service.type)))
        }
        var characteristics = JSONObject()
        for characteristic in HAPCatalog.characteristics {
            var entry: JSONObject = ["label": .string(HAPCatalog.characteristicLabel(characteristic.type))]
            let values = HAPCatalog.valueLabels(characteristic.type)
            if !values.isEmpty {
                var named = JSONObject()
                for (value, label) in values.sorted(by: { $0.key < $1.key }) {
                    named.append(String(value), .string(label))
                }
                entry.append("values", .object(named))
            }
            characteristics.append(characteristic.type.shortForm, .object(entry))
        }
        var units = JSONObject()
        for unit in ["celsius", "percentage", "arcdegrees", "lux", "seconds"] {
            units.append(unit, .string(HAPCatalog.unitSymbol(unit)))
        }
        let catalog: JSONValue = [
            "services": .object(services), "characteristics": .object(characteristics), "units": .object(units),
        ]
        return catalog.description
    }()

    /// `GET /api/excluded`: `[{"id":"…","name":"…"}]`, the accessories their options exclude (not on MQTT
    /// nor in the list), by name.
    func excludedList() async -> HTTPResponse {
        var entries: [JSONValue] = []
        for id in excludedAccessories.sorted() {
            let name = await store.accessory(id)?.name ?? id.description
            entries.append(["id": .string(id.description), "name": .string(name)])
        }
        return .json(JSONValue.array(entries).description)
    }
}
