import HomeModel
import JSON

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
        /// Home Assistant's state class of a numeric sensor; `measurement` unless a vendor's entry says otherwise.
        var stateClass: String? = "measurement"

        static func sensor(_ deviceClass: String?, _ unit: String?, diagnostic: Bool = false) -> Kind {
            Kind(deviceClass: deviceClass, unit: unit, diagnostic: diagnostic)
        }

        /// How a vendor's characteristic is shown: its entry's platform, unit and classes.
        static func vendor(_ entry: VendorCharacteristic, format: CharacteristicFormat) -> Kind {
            let binary = entry.platform == "binary_sensor" || format == .bool
            return Kind(
                component: binary ? "binary_sensor" : "sensor", deviceClass: entry.deviceClass, unit: entry.unit,
                on: format == .bool ? "true" : "1", diagnostic: entry.category == "diagnostic",
                stateClass: entry.stateClass)
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
        t("C6"): .sensor("pm25", microgramsPerCubicMetre),
        t("C7"): .sensor("pm10", microgramsPerCubicMetre),
        t("C8"): .sensor("volatile_organic_compounds", microgramsPerCubicMetre),
        t("C3"): .sensor("ozone", microgramsPerCubicMetre),
        t("C4"): .sensor("nitrogen_dioxide", microgramsPerCubicMetre),
        t("C5"): .sensor("sulphur_dioxide", microgramsPerCubicMetre),
        t("64"): .sensor(nil, microgramsPerCubicMetre),
        t("95"): .sensor("aqi", nil),
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
        t("AB"): .sensor(nil, "%"),
        t("D2"): .binary("running"),
    ]

    /// Home Assistant's spelling of µg/m³, with the Greek letter mu (U+03BC) as its `UnitOfConcentration`
    /// has it; the micro sign (U+00B5) is another unit to Home Assistant's unit checks.
    static let microgramsPerCubicMetre = "\u{03BC}g/m³"

    /// Enumerations that are on and off: Active and LockPhysicalControls (a child lock).
    static let onOffEnumerations: Set<HAPType> = [
        DiscoveryTypes.Characteristic.active, DiscoveryTypes.Characteristic.lockPhysicalControls,
    ]

    /// HAP units in Home Assistant's spelling.
    static let units: [String: String] = [
        "celsius": "°C", "percentage": "%", "lux": "lx", "arcdegrees": "°", "seconds": "s",
    ]

    /// The entities of one characteristic that no mapping used: none for label characteristics, stateless
    /// ones, and raw `tlv8`/`data`/`array`/`dict` values (control points, not something to show).
    ///
    /// A characteristic that can be written is a control, so that nothing writable is lost: `switch` for a
    /// bool (and for Active), `select` for an enumeration (its valid values by name), `number` for other numbers (range,
    /// step, unit), `text` for a string. One that can only be written is a `button` (a bool, or a number
    /// with a single value), or a `button` per valid value (RemoteKey's keys, VolumeSelector's up and
    /// down). One that can only be read is a `sensor` or a `binary_sensor`.
    static func entities(_ slot: ServiceContext.Slot, in c: ServiceContext, isMain: Bool) -> [DiscoveryEntity] {
        let characteristic = slot.characteristic
        guard !DiscoveryTypes.Characteristic.labels.contains(characteristic.type),
            !HAPCatalog.isStateless(characteristic.type)
        else {
            return []
        }
        switch characteristic.format {
        case .tlv8, .data, .array, .dictionary: return []
        default: break
        }
        var made: [DiscoveryEntity]
        if let command = slot.command {
            made =
                slot.state != nil
                ? control(slot, command: command, in: c, isMain: isMain).map { [$0] } ?? []
                : buttons(slot, command: command, in: c)
        } else {
            made = sensor(slot, in: c, isMain: isMain).map { [$0] } ?? []
        }
        // A type neither HAP nor the vendor table knows: shown for what it is worth, out of the way.
        if isUnknown(characteristic.type) {
            for index in made.indices {
                made[index].options["entity_category"] = "diagnostic"
                made[index].options["enabled_by_default"] = false
            }
        }
        return made
    }

    /// Whether neither the HAP catalog nor the vendor table knows `type`.
    static func isUnknown(_ type: HAPType) -> Bool {
        HAPCatalog.characteristic(type) == nil && VendorCharacteristics.entry(type) == nil
    }

    /// A characteristic's name in words: `Current relative humidity`; for a vendor's type, its name in the
    /// vendor table (`Energy`), else the description the accessory gave it (`Night mode`), else
    /// `Vendor characteristic <iid>`: never its UUID, which says nothing to a user.
    static func word(_ characteristic: Characteristic) -> String {
        if let info = HAPCatalog.characteristic(characteristic.type) { return words(camelCase: info.name) }
        if let entry = VendorCharacteristics.entry(characteristic.type) { return entry.name }
        if let text = characteristic.descriptionText.map(HomeAssistantDiscovery.displayName), !text.isEmpty,
            !isUUID(text)
        {
            return words(camelCase: text)
        }
        return "Vendor characteristic \(characteristic.iid)"
    }

    /// Whether `text` is a type's UUID (some accessories describe a vendor characteristic by it).
    private static func isUUID(_ text: String) -> Bool {
        text.count == 36 && HAPType(text) != nil
    }

    /// The entity name of a characteristic's own entity: the device name for the accessory's main entity,
    /// the service's label for a service's main entity, else the characteristic in words after the label.
    private static func name(_ characteristic: Characteristic, in c: ServiceContext, isMain: Bool) -> JSONValue {
        isMain ? c.mainName : .string(c.entityName(word(characteristic)))
    }

    /// The valid values of an enumeration with their names in snake case (`swing_enabled`), limited to
    /// the ones the accessory allows; empty for a characteristic that is no enumeration.
    static func namedValues(_ characteristic: Characteristic) -> [(Int, String)] {
        let allowed = characteristic.validValues.map(Set.init)
        if let options = VendorCharacteristics.entry(characteristic.type)?.options, !options.isEmpty {
            return options.filter { allowed?.contains($0.0) ?? true }
        }
        guard let names = HAPCatalog.characteristic(characteristic.type)?.validValues, !names.isEmpty else { return [] }
        return names.filter { allowed?.contains($0.value) ?? true }.map { ($0.value, snakeCase($0.name)) }
    }

    /// A readable and writable characteristic as a control: `switch`, `select`, `number` or `text`.
    private static func control(_ slot: ServiceContext.Slot, command: String, in c: ServiceContext, isMain: Bool)
        -> DiscoveryEntity?
    {
        let characteristic = slot.characteristic
        guard let state = slot.state else { return nil }
        let vendor = VendorCharacteristics.entry(characteristic.type)
        var o: JSONObject = ["state_topic": .string(state), "command_topic": .string(command)]
        if !isMain, let category = vendor.map(\.category) ?? "config" { o["entity_category"] = .string(category) }
        let component: String
        let values = namedValues(characteristic)
        switch characteristic.format {
        case .bool:
            component = "switch"
            o["payload_on"] = "true"
            o["payload_off"] = "false"
        case _ where onOffEnumerations.contains(characteristic.type):
            // Active and LockPhysicalControls (a child lock) are on and off, though HAP makes them enumerations.
            component = "switch"
            o["payload_on"] = "1"
            o["payload_off"] = "0"
        case .string:
            component = "text"
            o["max"] = JSONValue(min(characteristic.maxLength ?? 64, 255))
            o["value_template"] = .string(emptyText)
        case _ where !values.isEmpty:
            component = "select"
            o["options"] = .array(values.map { .string($0.1) })
            // A value outside the options shows as unknown: Home Assistant logs any other word as an error.
            o["value_template"] = .string(Template.words(values, fallback: "None"))
            o["command_template"] = .string(Template.integers(values))
        default:
            component = "number"
            let range = characteristic.format.integerRange
            let low = Swift.max(characteristic.minValue ?? vendor?.minValue ?? range?.lowerBound ?? 0, -1e15)
            let high = Swift.min(characteristic.maxValue ?? vendor?.maxValue ?? range?.upperBound ?? 100, 1e15)
            let step =
                (characteristic.minStep ?? vendor?.minStep).flatMap { $0 > 0 ? $0 : nil }
                ?? (characteristic.format.isInteger ? 1 : 0.1)
            o["min"] = .double(low)
            o["max"] = .double(high)
            o["step"] = .double(step)
            if let unit = vendor?.unit ?? characteristic.unit.map({ units[$0] ?? $0 }) {
                o["unit_of_measurement"] = .string(unit)
            }
            if let deviceClass = vendor?.deviceClass { o["device_class"] = .string(deviceClass) }
            // A slider of more than 256 positions cannot be set to one of them.
            if (high - low) / step > 256 { o["mode"] = "box" }
        }
        return DiscoveryEntity(
            component: component, objectID: "s\(c.service.iid)_c\(characteristic.iid)",
            name: name(characteristic, in: c, isMain: isMain), options: o)
    }

    /// A write-only characteristic as buttons: one for a bool or a single-valued number (HoldPosition,
    /// ResetFilterIndication), one per valid value for an enumeration (RemoteKey, VolumeSelector).
    static func buttons(_ slot: ServiceContext.Slot, command: String, in c: ServiceContext, names: [Int: String] = [:])
        -> [DiscoveryEntity]
    {
        let characteristic = slot.characteristic
        let word = word(characteristic)
        let objectID = "s\(c.service.iid)_c\(characteristic.iid)"
        if characteristic.format == .bool {
            return [
                DiscoveryEntity(
                    component: "button", objectID: objectID, name: .string(c.entityName(word)),
                    options: ["command_topic": .string(command), "payload_press": "true"])
            ]
        }
        let values = namedValues(characteristic)
        if values.isEmpty {
            guard let min = characteristic.minValue, min == characteristic.maxValue else { return [] }
            return [
                DiscoveryEntity(
                    component: "button", objectID: objectID, name: .string(c.entityName(word)),
                    options: [
                        "command_topic": .string(command), "payload_press": .string(CharacteristicValue.format(min)),
                    ])
            ]
        }
        return values.map { value, valueName in
            let label = names[value] ?? "\(word) \(words(valueName).lowercased())"
            return DiscoveryEntity(
                component: "button", objectID: "\(objectID)_v\(value)", name: .string(c.entityName(label)),
                options: ["command_topic": .string(command), "payload_press": .string(String(value))])
        }
    }

    /// A read-only characteristic as a `sensor` or `binary_sensor`.
    static func sensor(_ slot: ServiceContext.Slot, in c: ServiceContext, isMain: Bool) -> DiscoveryEntity? {
        let characteristic = slot.characteristic
        guard let state = slot.state else { return nil }
        let info = HAPCatalog.characteristic(characteristic.type)
        var kind = kinds[characteristic.type]
        if kind == nil, let entry = VendorCharacteristics.entry(characteristic.type) {
            kind = .vendor(entry, format: characteristic.format)
        }
        if kind == nil {
            switch characteristic.format {
            case .bool: kind = .binary(nil, on: "true")
            default: kind = .sensor(nil, characteristic.unit.map { units[$0] ?? $0 })
            }
        }
        guard let kind else { return nil }
        var o: JSONObject = ["state_topic": .string(state)]
        if let deviceClass = kind.deviceClass { o["device_class"] = .string(deviceClass) }
        // Diagnostic even as its service's main entity (a Battery's level), unless it names the device.
        if kind.diagnostic, !(isMain && c.isMain) { o["entity_category"] = "diagnostic" }
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
        } else if case let values = namedValues(characteristic), !values.isEmpty, kinds[characteristic.type] == nil {
            o["value_template"] = .string(Template.words(values))
        } else if characteristic.format == .string {
            o["value_template"] = .string(emptyText)
        } else {
            if let unit = kind.unit { o["unit_of_measurement"] = .string(unit) }
            if characteristic.format.isNumeric, let stateClass = kind.stateClass {
                o["state_class"] = .string(stateClass)
            }
        }
        return DiscoveryEntity(
            component: kind.component, objectID: "s\(c.service.iid)_c\(characteristic.iid)",
            name: name(characteristic, in: c, isMain: isMain),
            options: o)
    }

    /// A string's value template: the gateway publishes an empty string as `""` (an empty payload would clear
    /// the retained topic), which Home Assistant must show as empty text.
    static let emptyText = "{{ '' if value == '\"\"' else value }}"

    /// `Status low battery` → `status low battery`; a first word in capitals (`PM2.5 density`, `VOC`)
    /// stays as it is.
    static func lowercasingFirstWord(_ text: String) -> String {
        let first = text.prefix { $0 != " " }
        guard first.count == 1 || first.dropFirst().contains(where: \.isLowercase) else { return text }
        return first.lowercased() + text.dropFirst(first.count)
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
                if previous.isLowercase || previous.isNumber && previous != "." || (previous.isUppercase && nextIsLower)
                {
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
