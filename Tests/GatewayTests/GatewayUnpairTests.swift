import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@Suite("Gateway: a removed pairing frees its accessories' names")
struct GatewayUnpairTests {
    @Test("an accessory reset to factory settings and paired again under a new id gets its old topics, not …_2")
    func resetAccessoryKeepsItsTopics() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            #expect(await h.gateway.registeredSlug(of: GatewayFixture.id(2)) == "kitchen_lamp")
            // The pairing goes (the pairing watcher removes the provider, then tells the gateway).
            #expect(await h.store.removeProvider(id: h.provider.id))
            await h.gateway.forgetPairing(serverID: GatewayFixture.serverID)
            // The same lamp, reset: a new accessory pairing id.
            let reset = InMemoryAccessoryProvider(
                serverID: "0A:0B:0C:0D:0E:0F",
                accessories: [
                    InMemoryAccessoryProvider.accessory(
                        aid: 1, name: "Kitchen Lamp", serverID: "0A:0B:0C:0D:0E:0F", services: [.Service.lightbulb])
                ],
                autoSync: true)
            let mark = h.mqtt.published.count
            await h.store.add(reset)
            let json = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp", after: mark) {
                $0.payloadString?.isEmpty == false
            }
            #expect(json.topic == "hap2mqtt/kitchen_lamp")
            #expect(
                await h.gateway.registeredSlug(of: AccessoryID(serverID: "0A:0B:0C:0D:0E:0F", aid: 1)) == "kitchen_lamp"
            )
            #expect(await h.gateway.registeredSlug(of: GatewayFixture.id(3)) == nil, "the lock's name is free too")
        }
    }
}
