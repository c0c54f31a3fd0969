import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// MQTT 5 response topics on a broker with an ACL (docs/security.md "Response topics"): a client allowed
/// only under `hap2mqtt/` cannot make the gateway, whose own rights are wider, publish anywhere else.
@Suite("hap2mqtt run on a broker with an ACL: response topics", .serialized)
struct LiveResponseTopicACLTests {
    static let users = ["gateway": "gateway-secret", "limited": "limited-secret", "admin": "admin-secret"]

    /// The mosquitto ACL: the gateway and the admin may use every topic, `limited` only `hap2mqtt/#`.
    static let acl = """
        user gateway
        topic readwrite #

        user limited
        topic readwrite hap2mqtt/#

        user admin
        topic readwrite #

        """

    static func client(_ broker: MosquittoBroker, _ user: String, subscribe: [String]) async throws -> MQTTTestClient {
        try await MQTTTestClient.connect(to: broker, subscribe: subscribe) {
            $0.username = user
            $0.password = users[user]
        }
    }

    @Test(
        "a client allowed only hap2mqtt/# names zigbee2mqtt/bridge/request/restart as the response topic of a health_check: nothing is published there or answered; an allowed response topic is answered"
    )
    func borrowedRights() async throws {
        let aclFile = FileManager.default.temporaryDirectory.appendingPathComponent("acl-\(UUID().uuidString)")
        try TestFile.write(Self.acl, to: aclFile)
        defer { try? FileManager.default.removeItem(at: aclFile) }
        let broker = try await MosquittoBroker(
            options: .init(users: Self.users, extraConfiguration: ["acl_file \(aclFile.path)"]))
        let accessory = try await HAPPythonAccessory.start()
        let gateway = try GatewayProcess(
            brokerURL: broker.url,
            environment: ["HAP2MQTT_MQTT_USERNAME": "gateway", "HAP2MQTT_MQTT_PASSWORD": Self.users["gateway"]!])
        try await LiveGateway.pair(gateway, with: accessory)
        let admin = try await Self.client(broker, "admin", subscribe: ["#"])
        let limited = try await Self.client(broker, "limited", subscribe: ["hap2mqtt/response/#"])
        try gateway.start()
        _ = try await admin.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.payloadString?.contains(#""state":"online""#) == true
        }

        // The ACL holds: the limited client's own publish there never reaches the admin.
        try? await limited.publish("zigbee2mqtt/bridge/request/restart", "{}")
        // The attack: a request the client may send, with a response topic it may not write to and a
        // transaction far longer than any echoed one.
        let attack = String(repeating: "x", count: 10_000)
        try await limited.publish(
            "hap2mqtt/bridge/request/health_check", #"{"transaction":"\#(attack)"}"#,
            properties: MQTTProperties(
                responseTopic: "zigbee2mqtt/bridge/request/restart", correlationData: Array("attack".utf8)))
        // Then an allowed one, answered on its response topic; commands are handled in order, so once it
        // is answered the attack was dealt with.
        try await limited.publish(
            "hap2mqtt/bridge/request/health_check", #"{"transaction":"t-ok"}"#,
            properties: MQTTProperties(responseTopic: "hap2mqtt/response/limited", correlationData: Array("ok".utf8)))
        let reply = try await limited.waitFor(topic: "hap2mqtt/response/limited", timeout: .seconds(30))
        #expect(reply.properties.correlationData == Array("ok".utf8))
        let answer = try #require((try? JSONSerialization.jsonObject(with: Data(reply.payload))) as? [String: Any])
        #expect(answer["status"] as? String == "ok", "\(answer)")
        #expect(answer["transaction"] as? String == "t-ok")
        _ = try await admin.waitFor(topic: "hap2mqtt/bridge/response/health_check", timeout: .seconds(30)) {
            $0.payloadString?.contains("t-ok") == true
        }

        #expect(await admin.messages(on: "zigbee2mqtt/#").isEmpty, "the gateway published for the limited client")
        let answers = await admin.messages(on: "hap2mqtt/bridge/response/health_check")
        #expect(answers.count == 1, "the refused request was answered: \(answers.map(\.payloadString))")
        #expect(!answers.contains { $0.payloadString?.contains("xxxx") == true })
        let refusals = gateway.log.components(separatedBy: "\n").filter {
            $0.contains("with the response topic \"zigbee2mqtt/bridge/request/restart\"")
        }
        #expect(refusals.count == 1, "\(gateway.log.suffix(3000))")
        #expect(!gateway.log.contains(attack))

        await gateway.stop()
        await admin.disconnect()
        await limited.disconnect()
        await accessory.stop()
        await broker.stop()
    }
}
