import HomeModel

/// The entity a single characteristic gets when no service mapping used it: a binary sensor for
/// detections, faults and on/off states, a sensor for numbers, text and enumerations. Known types carry
/// Home Assistant's device class and unit; the rest follow their format and HAP unit.
enum CharacteristicEntities {
    /// How a known characteristic type is shown.
    struct Kind: Sendable {
        var component = "sensor"
        var deviceClass: String?
        var unit: String?
        /// For a binary sensor, the published payload that means "on" (`1` for uint8, `true` for bool).
        var on: String?
        var diagnostic = false

        static func sensor(_ deviceClass: String?, _ unit: String?, diagnostic: Bool = false) -> Kind {
            Kind(deviceClass: deviceClass, unit: unit, diagnostic: diagnostic)
        }

        static func binary(_ deviceClass: String?, on: String = "1", diagnostic: Bool = false) -> Kind {
            Kind(component: "binary_sensor", deviceClass: deviceClass, on: on, diagnostic: diagnostic)
        }
    }

    private static func t(_ short: String) -> HAPType { HAPType(short) ?? .Characteristic.name }

    /// Known characteristic types (HAP spec §9 for the values; Home Assistant's sensor and binary sensor
    /// device classes). ContactSensorState 1 means "contact not detected", i.e. open.
    static let kinds: [HAPType: Kind] = [
        t("11"): .sensor("temperature", "°C"),
        t("10"): .sensor("humidity", "%"),
        t("6B"): .sensor("illuminance", "lx"),
        t("93"): .sensor("carbon_dioxide", "ppm"),
        t("94"): .sensor("carbon_dioxide", "ppm"),
        t("90"): .sensor("carbon_monoxide", "ppm"),
        t("91"): .sensor("carbon_monoxide", "ppm"),
        t("68"): .sensor("battery", "%", diagnostic: true),
        t("C6"): .sensor("pm25", "µg/m³"),
        t("C7"): .sensor("pm10", "µg/m³"),
        t("C8"): .sensor("volatile_organic_compounds", "µg/m³"),
        t("C3"): .sensor("ozone", "µg/m³"),
        t("C4"): .sensor("nitrogen_dioxide", "µg/m³"),
        t("C5"): .sensor("sulphur_dioxide", "µg/m³"),
        t("64"): .sensor(nil, "µg/m³"),
        t("6A"): .binary("door"),
        t("22"): .binary("motion", on: "true"),
        t("71"): .binary("occupancy"),
        t("70"): .binary("moisture"),
        t("76"): .binary("smoke"),
        t("69"): .binary("carbon_monoxide"),
        t("92"): .binary("problem"),
        t("26"): .binary("plug", on: "true"),
        t("24"): .binary("problem", on: "true"),
        t("79"): .binary("battery", diagnostic: true),
        t("77"): .binary("problem", diagnostic: true),
        t("7A"): .binary("tamper", diagnostic: true),
        t("78"): .binary("problem", diagnostic: true),
        t("75"): .binary("running", on: "true", diagnostic: true),
        t("8F"): .binary("battery_charging", diagnostic: true),
        t("AC"): .binary("problem"),
        t("D2"): .binary("running"),
    ]

    /// HAP units in Home Assistant's spelling.
    static let units: [String: String] = [
        "celsius": "°C", "percentage": "%", "lux": "lx", "arcdegrees": "°", "seconds": "s",
    ]

    /// The entity of one characteristic, or nil for those that cannot be read, label characteristics,
    /// and raw `tlv8`/`data`/`array`/`dict` values (control points, not something to show).
    static func entity(_ slot: ServiceContext.Slot, in c: ServiceContext, isMain: Bool) -> DiscoveryEntity? {
        let characteristic = slot.characteristic
        guard let state = slot.state, !DiscoveryTypes.Characteristic.labels.contains(characteristic.type),
            !HAPCatalog.isStateless(characteristic.type)
        else { return nil }
        let info = HAPCatalog.characteristic(characteristic.type)
        var kind = kinds[characteristic.type]
        if kind == nil {
            switch characteristic.format {
            case .bool: kind = .binary(nil, on: "true")
            case .tlv8, .data, .array, .dictionary: return nil
            default: kind = .sensor(nil, characteristic.unit.map { units[$0] ?? $0 })
            }
        }
        guard let kind else { return nil }
        var o: [String: JSONValue] = ["state_topic": .string(state)]
        if let deviceClass = kind.deviceClass { o["device_class"] = .string(deviceClass) }
        if kind.diagnostic, !isMain { o["entity_category"] = "diagnostic" }
        if kind.component == "binary_sensor" {
            let on = kind.on ?? "1"
            if on == "true" {
                o["payload_on"] = "true"
                o["payload_off"] = "false"
            } else if Set(characteristic.validValues ?? info?.validValues.map(\.value) ?? [0, 1]).isSubset(of: [0, 1]) {
                o["payload_on"] = .string(on)
                o["payload_off"] = "0"
            } else {
                // Any value but "on" is off: ChargingState 2 (not chargeable) must not read as charging.
                o["value_template"] = .string("{{ 'ON' if value == \(Template.quoted(on)) else 'OFF' }}")
            }
        } else if let names = info?.validValues, !names.isEmpty, kinds[characteristic.type] == nil {
            o["value_template"] = .string(Template.words(names.map { ($0.value, snakeCase($0.name)) }))
        } else {
            if let unit = kind.unit { o["unit_of_measurement"] = .string(unit) }
            if characteristic.format.isNumeric { o["state_class"] = "measurement" }
        }
        let word = info.map { words(camelCase: $0.name) } ?? words(HAPCatalog.characteristicSlug(characteristic.type))
        let name: JSONValue = isMain ? c.mainName : .string(c.isMain ? word : "\(c.label) \(word.lowercased())")
        return DiscoveryEntity(
            component: kind.component, objectID: "s\(c.service.iid)_c\(characteristic.iid)", name: name, options: o)
    }

    /// `outlet_2` → `Outlet 2` (Home Assistant's sentence case).
    static func words(_ slug: String) -> String {
        let text = slug.split(separator: "_").joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// A catalog name in sentence case, acronyms kept: `CurrentRelativeHumidity` → `Current relative
    /// humidity`, `PM2.5Density` → `PM2.5 density`, `VOCDensity` → `VOC density`.
    static func words(camelCase name: String) -> String {
        let words = camelWords(name).map { $0.count > 1 && $0.allSatisfy { !$0.isLowercase } ? $0 : $0.lowercased() }
        let text = words.joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// A valid-value name as a word for Home Assistant: `SecuredPhysically,Exterior` →
    /// `secured_physically_exterior`.
    static func snakeCase(_ name: String) -> String {
        camelWords(name).map { $0.lowercased() }.joined(separator: "_")
    }

    /// Splits a CamelCase name into words: a word starts at a capital after a lower-case letter or digit,
    /// or at the last capital of a run that a lower-case letter follows; `,`, spaces and `-` separate.
    private static func camelWords(_ name: String) -> [String] {
        let chars = Array(name)
        var words: [String] = []
        var current = ""
        for (i, c) in chars.enumerated() {
            if c == "," || c == " " || c == "-" || c == "_" {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if c.isUppercase, let previous = current.last {
                let nextIsLower = i + 1 < chars.count && chars[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber && previous != "." || (previous.isUppercase && nextIsLower) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(c)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
