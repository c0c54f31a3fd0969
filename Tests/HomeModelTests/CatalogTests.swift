import Testing

@testable import HomeModel

@Suite("HAP type catalog")
struct CatalogTests {
    /// The short types of the 149 rows of hap-characteristics.tsv (HAP-python's characteristics.json).
    static let referenceTypes = """
        1 5 8 D E F 10 11 12 13 14 19 1A 1C 1D 1E 1F 20 21 22 23 24 25 26 28 29 2F 30 32 33 34 35 36 37 4C 4E 4F 50
        52 53 64 65 66 67 68 69 6A 6B 6C 6D 6E 6F 70 71 72 73 75 76 77 78 79 7A 7B 7C 7D 8E 8F 90 91 92 93 94 95 A6
        A7 A8 A9 AA AB AC AD AE AF B0 B1 B2 B3 B4 B5 B6 BE BF C0 C1 C2 C3 C4 C5 C6 C7 C8 C9 CA CB CD CE D1 D2 D3 D4
        D5 D6 DB DC DD DF E0 E1 E2 E3 E6 E7 E8 E9 EA 114 115 116 117 118 119 11A 11B 11C 11D 11E 11F 120 134 135 136
        137 143 144 24B 263 264 265 26C
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    private func info(_ short: String) throws -> CharacteristicTypeInfo {
        try #require(HAPCatalog.characteristic(try hapType(short)), "no catalog entry for \(short)")
    }

    @Test("holds every one of the 149 reference rows plus the types controllers meet beyond them")
    func counts() throws {
        #expect(Self.referenceTypes.count == 149)
        for short in Self.referenceTypes { _ = try info(short) }
        for short in ["54", "57", "74", "126", "220"] { _ = try info(short) }
        #expect(HAPCatalog.characteristics.count == 154)
        #expect(HAPCatalog.services.count == 44)
        #expect(HAPCatalog.table.unresolvedNames.isEmpty)
    }

    @Test("numeric rows keep format, permissions, unit, range and step")
    func numericRows() throws {
        let brightness = try info("8")
        #expect(brightness.name == "Brightness")
        #expect(brightness.format == .int)
        #expect(brightness.permissions == [.pairedRead, .pairedWrite, .events])
        #expect(brightness.unit == "percentage")
        #expect(brightness.minValue == 0 && brightness.maxValue == 100 && brightness.minStep == 1)

        let temperature = try info("11")
        #expect(temperature.format == .float && temperature.permissions == [.pairedRead, .events])
        #expect(temperature.unit == "celsius")
        #expect(temperature.minValue == -273.1 && temperature.maxValue == 1000 && temperature.minStep == 0.1)

        let light = try info("6B")
        #expect(light.unit == "lux" && light.minValue == 0.0001 && light.maxValue == 100000 && light.minStep == nil)

        let colorTemperature = try info("CE")
        #expect(colorTemperature.format == .uint32 && colorTemperature.unit == nil)
        #expect(colorTemperature.minValue == 140 && colorTemperature.maxValue == 500)

        let rotation = try info("11E")
        #expect(rotation.minStep == 90 && rotation.maxValue == 270 && rotation.unit == "arcdegrees")
        let identifier = try info("E6")
        #expect(identifier.minValue == 0 && identifier.maxValue == nil && identifier.minStep == 1)
        #expect(try info("1A").unit == "seconds")
        #expect(try info("263").format == .uint16)
        #expect(try info("74").minValue == 0 && info("74").maxValue == 1)
    }

    @Test("write-only, write-response and data rows keep their permissions and format")
    func otherRows() throws {
        #expect(try info("14").permissions == [.pairedWrite])
        #expect(try info("14").format == .bool)
        #expect(try info("143").permissions == [.pairedRead, .pairedWrite, .writeResponse])
        #expect(try info("143").format == .tlv8)
        #expect(try info("26C").permissions == [.pairedRead])
        #expect(try info("23").format == .string)
        #expect(try info("220").format == .data)
        #expect(try info("126").format == .tlv8)
    }

    @Test("valid values are parsed by the last colon, so names may hold commas")
    func validValues() throws {
        let action = try info("1C")
        #expect(action.validValues.count == 9)
        #expect(action.validValues.first == ValidValue(name: "SecuredPhysically,Interior", value: 0))
        #expect(action.validValues.contains(ValidValue(name: "SecuredPhysically,Exterior", value: 2)))
        #expect(action.validValues.contains(ValidValue(name: "UnsecuredByKeypad", value: 5)))
        #expect(action.validValues.map(\.value) == Array(0...8))

        #expect(
            try info("1E").validValues == [
                ValidValue(name: "Unsecured", value: 0), ValidValue(name: "Secured", value: 1),
            ])
        #expect(try info("D1").validValue(named: "programscheduled(manualmode)") == 2)
        #expect(try info("28").validValue(named: "counter_clockwise") == 1)
        #expect(try info("65").validValue(named: "10μm") == 1)
        #expect(try info("E1").validValues.map(\.value) == Array(0...11) + [15])
        #expect(try info("E1").maxValue == 16)
        #expect(try info("33").validValue(named: "HEAT") == 1)
        #expect(try info("33").validValue(named: "sideways") == nil)
        #expect(try info("8").validValues.isEmpty)
    }

    @Test("malformed valid-value text is refused, not half read")
    func malformedValidValues() {
        #expect(CatalogTable.validValues("valid=On:1,Off") == nil)
        #expect(CatalogTable.validValues("On:1") == nil)
        #expect(CatalogTable.validValues("") == [])
    }

    @Test("slugs are snake case, [a-z0-9_] only and unique")
    func slugs() throws {
        let expected: [String: String] = [
            "25": "on", "CE": "color_temperature", "1E": "lock_target_state", "10": "current_relative_humidity",
            "93": "carbon_dioxide_level", "C6": "pm2_5_density", "C7": "pm10_density", "C8": "voc_density",
            "264": "nfc_access_control_point", "116": "supported_rtp_configuration", "8": "brightness",
        ]
        for (short, slug) in expected { #expect(HAPCatalog.characteristicSlug(try hapType(short)) == slug) }
        let services: [String: String] = [
            "8A": "temperature_sensor", "43": "lightbulb", "3E": "accessory_information",
            "A2": "hap_protocol_information", "B7": "fanv2", "110": "camera_rtp_stream_management",
        ]
        for (short, slug) in services { #expect(HAPCatalog.serviceSlug(try hapType(short)) == slug) }

        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
        for slugs in [HAPCatalog.characteristics.map(\.slug), HAPCatalog.services.map(\.slug)] {
            #expect(Set(slugs).count == slugs.count)
            for slug in slugs {
                #expect(!slug.isEmpty && slug.allSatisfy(allowed.contains), "bad slug \(slug)")
                #expect(!slug.hasPrefix("_") && !slug.hasSuffix("_") && !slug.contains("__"), "bad slug \(slug)")
            }
        }
    }

    @Test("types the catalog does not know use their lower-case full UUID as slug")
    func unknownSlugs() throws {
        let vendor = try #require(HAPType("E863F10A-079E-48FF-8F27-9C2605A29F52"))
        #expect(HAPCatalog.characteristicSlug(vendor) == "e863f10a-079e-48ff-8f27-9c2605a29f52")
        #expect(HAPCatalog.serviceSlug(vendor) == "e863f10a-079e-48ff-8f27-9c2605a29f52")
        let unknownApple = try hapType("21D")
        #expect(HAPCatalog.characteristic(unknownApple) == nil)
        #expect(HAPCatalog.characteristicSlug(unknownApple) == "0000021d-0000-1000-8000-0026bb765291")
    }

    @Test("every entry is found again by type, name and slug")
    func roundTrip() {
        for c in HAPCatalog.characteristics {
            #expect(HAPCatalog.characteristic(c.type) == c)
            #expect(HAPCatalog.characteristic(named: c.name) == c)
            #expect(HAPCatalog.characteristic(named: c.name.uppercased()) == c)
            #expect(HAPCatalog.characteristic(named: c.slug) == c)
            #expect(HAPType(c.type.shortForm) == c.type)
        }
        for s in HAPCatalog.services {
            #expect(HAPCatalog.service(s.type) == s)
            #expect(HAPCatalog.service(named: s.name.lowercased()) == s)
            #expect(HAPCatalog.service(named: s.slug) == s)
        }
        #expect(HAPCatalog.characteristic(named: "NoSuchThing") == nil)
    }

    @Test("services list their required and optional characteristics by type")
    func services() throws {
        func names(_ types: [HAPType]) -> [String] { types.compactMap { HAPCatalog.characteristic($0)?.name } }
        let info = try #require(HAPCatalog.service(.Service.accessoryInformation))
        #expect(
            names(info.required) == ["Identify", "Manufacturer", "Model", "Name", "SerialNumber", "FirmwareRevision"])
        let bulb = try #require(HAPCatalog.service(named: "Lightbulb"))
        #expect(bulb.required == [.Characteristic.on])
        #expect(
            Set(bulb.optional).isSuperset(of: [
                .Characteristic.brightness, .Characteristic.hue,
                .Characteristic.saturation, .Characteristic.colorTemperature,
            ]))
        let thermostat = try #require(HAPCatalog.service(.Service.thermostat))
        #expect(
            names(thermostat.required) == [
                "CurrentHeatingCoolingState", "TargetHeatingCoolingState",
                "CurrentTemperature", "TargetTemperature", "TemperatureDisplayUnits",
            ])
        #expect(names(try #require(HAPCatalog.service(.Service.protocolInformation)).required) == ["Version"])
        #expect(
            names(try #require(HAPCatalog.service(.Service.lockMechanism)).required) == [
                "LockCurrentState", "LockTargetState",
            ])
        #expect(try #require(HAPCatalog.service(named: "AirQualitySensor")).optional.count == 13)
        #expect(HAPCatalog.service(.Service.doorbell)?.required == [.Characteristic.programmableSwitchEvent])
        for short in [
            "40", "B7", "41", "44", "47", "7E", "7F", "80", "81", "82", "83", "84", "85", "86", "87", "89",
            "8B", "8C", "8D", "96", "97", "BB", "BC", "BD", "CC", "CF", "D0", "D7", "D8", "D9", "110", "112",
            "113",
        ] {
            let service = try #require(HAPCatalog.service(try hapType(short)), "no service \(short)")
            #expect(!service.required.isEmpty)
        }
    }

    @Test("only event-only types are stateless")
    func stateless() throws {
        #expect(HAPCatalog.isStateless(.Characteristic.programmableSwitchEvent))
        #expect(HAPCatalog.isStateless(try hapType("126")))
        #expect(!HAPCatalog.isStateless(.Characteristic.on))
        #expect(!HAPCatalog.isStateless(try hapType("74")))
    }

    @Test("make fills a characteristic's metadata from the catalog")
    func make() throws {
        let lock = try #require(Characteristic.make(iid: 9, type: try hapType("1E"), value: .int(1)))
        #expect(lock.iid == 9 && lock.format == .uint8 && lock.isWritable && lock.supportsEvents)
        #expect(lock.validValues == [0, 1] && lock.value == .int(1))
        let hue = try #require(Characteristic.make(iid: 3, type: .Characteristic.hue))
        #expect(hue.unit == "arcdegrees" && hue.maxValue == 360 && hue.minStep == 1 && hue.validValues == nil)
        #expect(hue.value == nil)
        #expect(Characteristic.make(iid: 1, type: try hapType("21D")) == nil)
    }
}
