import Gateway
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// A command waits only for its own accessory server: a silent accessory holds up nobody else's commands,
/// and one server's commands are carried out in the order they came.
@Suite("command lanes")
struct CommandLaneTests {
    static let garageServer = "00:00:00:00:00:02"

    /// A second accessory server with one lamp, `garage_lamp`.
    static func garage() -> InMemoryAccessoryProvider {
        InMemoryAccessoryProvider(
            id: "garage", serverID: garageServer,
            accessories: [
                InMemoryAccessoryProvider.accessory(
                    aid: 1, name: "Garage Lamp", serverID: garageServer, services: [.Service.lightbulb])
            ])
    }

    @Test("a /set is answered while a /get to a silent accessory on another server is pending")
    func setPassesPendingGet() async throws {
        let garage = Self.garage()
        let garageLamp = AccessoryID(serverID: Self.garageServer, aid: 1)
        try await withGatewayHarness(moreProviders: [garage]) { h in
            try await h.waitUntilOnline()
            garage.holdReads(of: garageLamp)
            let asked = MQTTProperties(responseTopic: "hap2mqtt/response/garage")
            try await h.send("hap2mqtt/garage_lamp/lightbulb/brightness/get", "", properties: asked)
            let answer = try await h.set("kitchen_lamp/lightbulb/on", "true")
            #expect(answer.payloadString == #"{"status":"ok","value":true}"#)
            #expect(h.provider.value(at: h.address(aid: 2, .Characteristic.on)) == .bool(true))
            #expect(h.mqtt.messages(on: "hap2mqtt/response/garage").isEmpty, "the read is still pending")
            #expect(garage.reads.isEmpty)
            // A write to the silent accessory's own server waits behind its read.
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/garage_lamp/lightbulb/on/set", "true")
            #expect(garage.writes.isEmpty, "written before the read that came first")
            garage.releaseHeldReads()
            let reply = try await h.waitFor(topic: "hap2mqtt/response/garage", after: mark)
            #expect(reply.payloadString == #"{"status":"ok","value":0}"#)
            _ = try await h.waitFor(topic: "hap2mqtt/garage_lamp/lightbulb/on/set/result", after: mark)
            let order = h.mqtt.published.dropFirst(mark).map(\.topic).filter {
                $0 == "hap2mqtt/response/garage" || $0 == "hap2mqtt/garage_lamp/lightbulb/on/set/result"
            }
            #expect(order == ["hap2mqtt/response/garage", "hap2mqtt/garage_lamp/lightbulb/on/set/result"])
            #expect(garage.writes.count == 1)
        }
    }

    @Test("an identify waits behind a read of its own server; a /set to another server does not")
    func setPassesPendingIdentifyOfOtherServer() async throws {
        let garage = Self.garage()
        let garageLamp = AccessoryID(serverID: Self.garageServer, aid: 1)
        try await withGatewayHarness(moreProviders: [garage]) { h in
            try await h.waitUntilOnline()
            garage.holdReads(of: garageLamp)
            try await h.send("hap2mqtt/garage_lamp/lightbulb/brightness/get", "")
            try await h.send("hap2mqtt/bridge/request/identify", #"{"accessory":"garage_lamp"}"#)
            let answer = try await h.set("kitchen_lamp/lightbulb/brightness", "40")
            #expect(answer.payloadString == #"{"status":"ok","value":40}"#)
            #expect(h.mqtt.messages(on: "hap2mqtt/bridge/response/identify").isEmpty, "waits behind the read")
            garage.releaseHeldReads()
            let identified = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/response/identify")
            #expect(identified.payloadString == #"{"status":"ok","data":{"accessory":"garage_lamp"}}"#)
            #expect(garage.identified == [garageLamp])
        }
    }
}
