import HAP2MQTTTesting
import HAPController
import HomeModel
import JSON
import Testing

@Suite("Accessory JSON fuzzing", .timeLimit(.minutes(10)))
struct ModelFuzzTests {
    /// Maps `json` as an /accessories body, a characteristics answer and an event body. Whatever comes
    /// out keeps aids unique, and iids unique within each accessory.
    func check(_ json: JSONValue) {
        if let list = try? HAPAccessoryList(json: json, serverID: "AA:BB:CC:DD:EE:FF") {
            #expect(Set(list.accessories.map(\.aid)).count == list.accessories.count)
            for accessory in list.accessories {
                let iids = accessory.allCharacteristics.map(\.iid)
                #expect(Set(iids).count == iids.count)
            }
        }
        let body = json.encoded()
        let ids = [HAPCharacteristicID(aid: 1, iid: 2), HAPCharacteristicID(aid: 2, iid: 9)]
        for status in [200, 204, 207, 400, 470, 500] {
            if let results = try? HAPCharacteristicResult.parse(httpStatus: status, body: body, requested: ids) {
                #expect(ids.allSatisfy { results[$0] != nil }, "every requested characteristic has a result")
            }
        }
        if let events = try? HAPEventValue.parse(eventBody: body) {
            #expect(Set(events.map(\.id)).count == events.count, "one value per characteristic")
        }
    }

    @Test("mutations of the real /accessories body map without crashing")
    func mutatedBodies() async throws {
        let body = try FixtureFiles.hapPythonAccessories()
        var g = SeededGenerator(seed: 0xACC5)
        var parsed = 0
        var share = FairShare()
        for _ in 0..<3000 {
            await share.turn()
            guard let json = try? JSONValue(parsing: Mutation.mutate(body, using: &g)) else { continue }
            parsed += 1
            check(json)
        }
        #expect(parsed > 100, "enough mutations stay JSON to reach the mapper")
    }

    @Test("random HAP-shaped JSON maps without crashing")
    func randomTrees() async {
        var g = SeededGenerator(seed: 0x7EE5)
        var share = FairShare()
        for _ in 0..<2000 {
            await share.turn()
            check(Self.tree(depth: 0, using: &g))
        }
    }

    static let keys = [
        "accessories", "aid", "services", "iid", "type", "characteristics", "format", "perms", "value", "status",
        "minValue", "maxValue", "minStep", "maxLen", "valid-values", "valid-values-range", "primary", "hidden",
        "linked", "unit", "ev",
    ]
    static let leaves: [JSONValue] = [
        .null, true, false, 0, 1, -1, 7, .int(Int64.max), .uint(UInt64.max), 21.5, .double(-1e300), "25", "3E", "bool",
        "uint8",
        "float", "tlv8", "data", "string", "int", "pr", "pw", "", "AQID", "not base64",
        "E863F10A-079E-48FF-8F27-9C2605A29F52",
    ]

    /// A random tree made of HAP's keys and typical values, so that most of it looks almost right.
    static func tree(depth: Int, using g: inout SeededGenerator) -> JSONValue {
        let leaf = leaves.randomElement(using: &g) ?? .null
        guard depth < 6 else { return leaf }
        switch Int.random(in: 0..<10, using: &g) {
        case 0..<4:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &g) {
                object[keys.randomElement(using: &g) ?? "aid"] = tree(depth: depth + 1, using: &g)
            }
            return .object(object)
        case 4..<7:
            return .array((0..<Int.random(in: 0...5, using: &g)).map { _ in tree(depth: depth + 1, using: &g) })
        default:
            return leaf
        }
    }

    @Test("a value read in any format writes back in that format")
    func valueCoding() {
        var g = SeededGenerator(seed: 0x7A1E)
        let samples = [
            "0", "1", "2", "-1", "21.5", "20.0", "1e300", "-1e-300", "true", "false", "null", #""""#, #""AQID""#,
            #""12""#,
            #""true""#, #""%%""#, "[1,2]", #"{"a":1}"#, "18446744073709551615", "-9223372036854775808",
            "9223372036854775808", #""é""#,
        ]
        for _ in 0..<3000 {
            guard let text = samples.randomElement(using: &g),
                let format = CharacteristicFormat.allCases.randomElement(using: &g),
                let json = try? JSONValue(parsing: text)
            else { continue }
            guard let value = try? CharacteristicValue.decoded(fromHAP: json, format: format) else { continue }
            #expect(
                (try? JSONValue(encoding: value, format: format)) != nil,
                "\(text) as \(format) read as \(value) but does not write")
        }
    }
}
