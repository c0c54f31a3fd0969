import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import Testing

@Suite("bridge/accessories JSON")
struct AccessoryDescriptionTests {
    @Test("the hand-written document is the one JSONEncoder makes of the same descriptions")
    func sameAsJSONEncoder() throws {
        var accessories = GatewayFixture.accessories()
        accessories[0].room = "Kitchen \"east\"/1"
        accessories[0].home = "Home"
        let topics = TopicScheme(base: "hap2mqtt")
        let entries = accessories.enumerated().map { index, accessory in
            AccessoryDescription(
                accessory: accessory,
                layout: AccessoryLayout(accessory: accessory, slug: "slug_\(index)", topics: topics),
                reachable: index != 1, topics: topics)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let written = AccessoryDescription.json(entries)
        let encoded = try encoder.encode(entries)
        let parsedWritten = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? NSArray
        let parsedEncoded = try JSONSerialization.jsonObject(with: encoded) as? NSArray
        #expect(parsedWritten != nil)
        #expect(parsedWritten == parsedEncoded)
        #expect(written.contains(#""room":"Kitchen \"east\"/1""#))
    }
}
