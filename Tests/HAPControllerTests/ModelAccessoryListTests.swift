import Foundation
import HAP2MQTTTesting
import HAPController
import HomeModel
import JSON
import Testing

@Suite("Accessory JSON mapping")
struct ModelAccessoryListTests {
    static let server = "AA:BB:CC:DD:EE:01"

    @Test("the fixture's real /accessories body maps to the bridge and its six accessories")
    func fixtureTree() throws {
        let list = try HAPAccessoryList(body: FixtureFiles.hapPythonAccessories(), serverID: Self.server)
        #expect(list.problems.isEmpty, "\(list.problems)")
        #expect(list.accessories.map(\.aid) == [1, 2, 3, 4, 5, 6, 8])
        #expect(
            list.accessories.map(\.name) == [
                "hap2mqtt Test Bridge", "Light", "Switch", "Temperature", "Lock", "Thermostat", "Blind",
            ])
        #expect(list.accessories.allSatisfy { $0.id.serverID == Self.server })
        #expect(list.accessories.reduce(0) { $0 + $1.allCharacteristics.count } == 60)

        let light = list.accessories[1]
        #expect(light.id.description == "AA:BB:CC:DD:EE:01/2")
        #expect(light.manufacturer == "hap2mqtt tests")
        #expect(light.serialNumber == "HAP2MQTT-2")
        #expect(light.firmwareRevision == "1.0.0")
        let bulb = try #require(light.service(ofType: .Service.lightbulb))
        #expect(bulb.iid == 8)
        #expect(
            bulb.characteristics.map(\.type) == [
                .Characteristic.on, .Characteristic.brightness, .Characteristic.hue, .Characteristic.saturation,
                .Characteristic.colorTemperature,
            ])

        let on = try #require(bulb.characteristic(ofType: .Characteristic.on))
        #expect(on.iid == 9)
        #expect(on.format == .bool)
        #expect(on.permissions == [.pairedRead, .pairedWrite, .events])
        #expect(on.value == .bool(false))

        let brightness = try #require(bulb.characteristic(ofType: .Characteristic.brightness))
        #expect(brightness.format == .int)
        #expect(brightness.unit == "percentage")
        #expect(brightness.minValue == 0)
        #expect(brightness.maxValue == 100)
        #expect(brightness.minStep == 1)
        #expect(brightness.value == .int(0))

        let hue = try #require(bulb.characteristic(ofType: .Characteristic.hue))
        #expect(hue.format == .float)
        #expect(hue.value == .float(0), "an int sent for a float characteristic reads as a float")

        let ct = try #require(bulb.characteristic(ofType: .Characteristic.colorTemperature))
        #expect(ct.format == .uint32)
        #expect(ct.value == .int(140))
        #expect(ct.minValue == 140)

        let identify = try #require(light.informationService?.characteristic(ofType: .Characteristic.identify))
        #expect(identify.permissions == [.pairedWrite])
        #expect(identify.value == nil)
    }

    @Test("lock, thermostat and sensor metadata come through: valid values, timed writes, units")
    func fixtureMetadata() throws {
        let list = try HAPAccessoryList(body: FixtureFiles.hapPythonAccessories(), serverID: Self.server)
        let lock = try #require(list.accessories.first { $0.aid == 5 }?.service(ofType: .Service.lockMechanism))
        let lockTargetState = try #require(HAPType("1E"))
        let target = try #require(lock.characteristic(ofType: lockTargetState))
        #expect(target.format == .uint8)
        #expect(target.validValues == [0, 1])
        #expect(target.permissions.contains(.timedWrite))
        let temperature = try #require(
            list.accessories.first { $0.aid == 4 }?.service(ofType: .Service.temperatureSensor)?.characteristics.first)
        #expect(temperature.value == .float(21.5))
        #expect(temperature.minValue == -273.1)
        #expect(temperature.unit == "celsius")
        #expect(!temperature.isWritable)
        #expect(temperature.supportsEvents)
    }

    @Test("service flags, linked services and the other optional fields are read")
    func optionalFields() throws {
        let body = #"""
            {"accessories":[{"aid":1,"services":[
              {"iid":1,"type":"0000003E-0000-1000-8000-0026BB765291","primary":false,"characteristics":[]},
              {"iid":10,"type":"43","primary":true,"hidden":1,"linked":[20,"x"],"characteristics":[
                {"iid":11,"type":"E863F10A079E48FF8F279C2605A29F52","perms":["pr","ev","hd"],"format":"uint64",
                 "value":18446744073709551615,"description":"Total","maxLen":8,"maxDataLen":2,
                 "valid-values-range":[1,3]},
                {"iid":12,"type":"e3","perms":["pr","pw"],"format":"tlv8","value":"AQID"},
                {"iid":13,"type":"25","perms":["pr"],"format":"bool","value":1},
                {"iid":14,"type":"26","perms":["pr"],"format":"dict","value":{"b":[1,2]}}]},
              {"iid":20,"type":"49","characteristics":[]}]}]}
            """#
        let list = try HAPAccessoryList(body: Array(body.utf8), serverID: "s")
        #expect(list.problems.isEmpty, "\(list.problems)")
        let services = try #require(list.accessories.first?.services)
        #expect(services.map(\.isPrimary) == [false, true, false])
        #expect(services[1].isHidden)
        #expect(services[1].linked == [20])
        let vendor = services[1].characteristics[0]
        #expect(vendor.type.uuid == "E863F10A-079E-48FF-8F27-9C2605A29F52")
        #expect(vendor.value == .uint(UInt64.max))
        #expect(vendor.descriptionText == "Total")
        #expect(vendor.maxLength == 8)
        #expect(vendor.maxDataLength == 2)
        #expect(vendor.validValuesRange == 1...3)
        #expect(vendor.permissions == [.pairedRead, .events, .hidden])
        #expect(services[1].characteristics[1].value == .data([1, 2, 3]))
        #expect(services[1].characteristics[2].value == .bool(true))
        #expect(services[1].characteristics[3].value == .json(#"{"b":[1,2]}"#))
    }

    @Test("odd entries are skipped or adjusted with a reason while the rest is read")
    func malformedEntries() throws {
        let body = #"""
            {"accessories":[
              {"services":[]},
              {"aid":2,"services":[
                {"iid":1,"type":"43","characteristics":[
                  {"iid":2,"type":"25","perms":["pr"],"format":"bool","value":true},
                  {"type":"8","perms":["pr"],"format":"int","value":1},
                  {"iid":3,"type":"not-a-type","format":"int"},
                  {"iid":4,"type":"8","perms":["pr"],"format":"int32x","value":5},
                  {"iid":5,"type":"8","perms":["pr"],"format":"uint8","value":"abc","minValue":"low"},
                  {"iid":2,"type":"8","perms":["pr"],"format":"int","value":1},
                  {"iid":6,"type":"8","format":"int","value":7},
                  "nonsense"]},
                {"iid":1,"type":"49","characteristics":[]},
                {"type":"49"}]},
              {"aid":2,"services":[]},
              {"aid":3}],}
            """#
        let list = try HAPAccessoryList(body: Array(body.utf8), serverID: "s")
        #expect(list.accessories.map(\.aid) == [2])
        let chars = try #require(list.accessories.first?.allCharacteristics)
        #expect(chars.map(\.iid) == [2, 4, 5, 6])
        #expect(chars[1].format == .int, "unknown format inferred from the value")
        #expect(chars[1].value == .int(5))
        #expect(chars[2].value == nil, "a value the format cannot carry is left unknown")
        #expect(chars[2].minValue == nil)
        #expect(chars[3].permissions == [])
        let text = list.problems.map(\.description)
        #expect(text.contains("accessory #1 skipped: no valid \"aid\""))
        #expect(text.contains("aid 2 characteristic skipped: no valid \"iid\""))
        #expect(text.contains("aid 2 characteristic iid 3 skipped: \"type\" is not a HAP type UUID: \"not-a-type\""))
        #expect(
            text.contains(
                "aid 2 characteristic iid 4 adjusted: format \"int32x\" is not a HAP format; read as int from the value"
            ))
        #expect(
            text.contains("aid 2 characteristic iid 5 adjusted: value left unknown: \"abc\" is not a valid uint8 value")
        )
        #expect(text.contains("aid 2 characteristic iid 5 adjusted: ignored \"minValue\": \"low\" is not a number"))
        #expect(text.contains("aid 2 characteristic iid 2 skipped: a second characteristic with the same iid"))
        #expect(text.contains("aid 2 characteristic iid 6 adjusted: no \"perms\" array; no permissions assumed"))
        #expect(text.contains("aid 2 characteristic skipped: a characteristic must be an object, not string"))
        #expect(text.contains("aid 2 service iid 1 skipped: a second service with the same iid"))
        #expect(text.contains("aid 2 service skipped: no valid \"iid\""))
        #expect(text.contains("aid 2 skipped: a second accessory with the same aid"))
        #expect(text.contains("aid 3 skipped: no \"services\" array"))
        #expect(text.count == 13)
    }

    @Test("a minimum above the maximum is no range: both are ignored, and the reader says so")
    func minimumAboveMaximum() throws {
        let body = #"""
            {"accessories":[{"aid":1,"services":[{"iid":1,"type":"43","characteristics":[
              {"iid":2,"type":"8","perms":["pr","pw"],"format":"int","minValue":100,"maxValue":0,"value":50}]}]}]}
            """#
        let list = try HAPAccessoryList(body: Array(body.utf8), serverID: "s")
        let brightness = try #require(list.accessories.first?.allCharacteristics.first)
        #expect(brightness.minValue == nil && brightness.maxValue == nil)
        #expect(
            list.problems.map(\.description) == [
                #"aid 1 characteristic iid 2 adjusted: ignored "minValue" 100 and "maxValue" 0: the minimum is above the maximum"#
            ])
    }

    @Test("an empty valid-values list and a length limit below 1 would refuse every value: ignored, with a note")
    func limitsThatRefuseEverything() throws {
        let body = #"""
            {"accessories":[{"aid":1,"services":[{"iid":1,"type":"43","characteristics":[
              {"iid":2,"type":"8","perms":["pr","pw"],"format":"int","valid-values":[],"value":50},
              {"iid":3,"type":"23","perms":["pr","pw"],"format":"string","maxLen":-1,"value":"x"}]}]}]}
            """#
        let list = try HAPAccessoryList(body: Array(body.utf8), serverID: "s")
        let characteristics = try #require(list.accessories.first?.allCharacteristics)
        #expect(characteristics[0].validValues == nil && characteristics[1].maxLength == nil)
        #expect(
            list.problems.map(\.description) == [
                #"aid 1 characteristic iid 2 adjusted: ignored "valid-values": it lists no whole number"#,
                #"aid 1 characteristic iid 3 adjusted: ignored "maxLen": -1 is not a length of at least 1"#,
            ])
    }

    @Test("a body that is not an accessory list fails as a whole with a typed error")
    func wholeBodyErrors() {
        #expect(throws: HAPModelError.invalidJSON(JSONError(.unexpectedEnd, at: 16))) {
            try HAPAccessoryList(body: Array(#"{"accessories":["#.utf8), serverID: "s")
        }
        #expect(throws: HAPModelError.status(.insufficientPrivileges, httpStatus: 200)) {
            try HAPAccessoryList(body: Array(#"{"status":-70401}"#.utf8), serverID: "s")
        }
        #expect(throws: HAPModelError.unexpectedBody("expected an object with an \"accessories\" array")) {
            try HAPAccessoryList(body: Array("[]".utf8), serverID: "s")
        }
    }

    @Test("a 150-accessory bridge body with 1,490 characteristics maps completely")
    func bigBridge() throws {
        let body = ModelSamples.bigBridge(accessories: 149, characteristicsPerAccessory: 10)
        #expect(body.count > 150_000)
        let list = try HAPAccessoryList(body: body, serverID: "s")
        #expect(list.accessories.count == 149)
        #expect(list.accessories.reduce(0) { $0 + $1.allCharacteristics.count } == 1490)
        #expect(list.problems.isEmpty)
    }
}

/// Generated HAP bodies for the tests.
enum ModelSamples {
    /// A bridge-sized `/accessories` body: `accessories` accessories of one service each.
    static func bigBridge(accessories: Int, characteristicsPerAccessory: Int) -> [UInt8] {
        var list: [JSONValue] = []
        for aid in 2..<(2 + accessories) {
            var chars: [JSONValue] = []
            for n in 0..<characteristicsPerAccessory {
                chars.append([
                    "iid": JSONValue(10 + n), "type": "E863F10A-079E-48FF-8F27-9C2605A29F52",
                    "perms": ["pr", "pw", "ev"],
                    "format": "float", "value": .double(Double(n) + 0.5), "minValue": 0, "maxValue": 100,
                    "minStep": 0.1,
                    "unit": "percentage",
                    "description": .string("Vendor characteristic number \(n) with a longer name"),
                ])
            }
            list.append([
                "aid": JSONValue(aid),
                "services": [["iid": 9, "type": "43", "primary": true, "characteristics": .array(chars)]],
            ])
        }
        return JSONValue.object(["accessories": .array(list)]).encoded()
    }
}
