import Foundation
import HAP2MQTTTesting
import Testing

/// `bridge/request/backup`, as a client of the running gateway sends it: the answer carries the same
/// archive `hap2mqtt backup` writes, which `hap2mqtt restore` brings back on an empty state directory.
@Suite("bridge/request/backup with a real accessory")
struct BridgeBackupRequestTests {
    @Test("the archive in the answer restores every pairing; a short or missing passphrase is refused, never logged")
    func backupOverMQTT() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let passphrase = "a passphrase sent over MQTT"

        func request(_ payload: String) async throws -> [String: Any] {
            await live.observer.clear()
            try await live.publish("hap2mqtt/bridge/request/backup", payload)
            let answer = try await live.next(on: "hap2mqtt/bridge/response/backup", timeout: .seconds(60))
            return try #require(
                (try? JSONSerialization.jsonObject(with: Data(answer.payload))) as? [String: Any],
                "\(answer.payloadString ?? "")")
        }

        let short = try await request(#"{"passphrase":"short"}"#)
        #expect(short["status"] as? String == "error", "\(short)")
        #expect((short["error"] as? String)?.contains("fewer than 8 characters") == true, "\(short)")
        let missing = try await request(#"{}"#)
        #expect(missing["status"] as? String == "error", "\(missing)")
        #expect((missing["error"] as? String)?.contains("passphrase") == true, "\(missing)")

        let made = try await request(#"{"passphrase":"\#(passphrase)","transaction":"t1"}"#)
        #expect(made["status"] as? String == "ok", "\(made)")
        #expect(made["transaction"] as? String == "t1", "\(made)")
        let data = try #require(made["data"] as? [String: Any], "\(made)")
        let base64 = try #require(data["archive"] as? String, "\(data)")
        let archive = try #require(Data(base64Encoded: base64))
        #expect(data["bytes"] as? Int == archive.count)
        #expect(archive.starts(with: Data("hap2mqtt backup\n".utf8)))
        let seed = try BackupRestoreTests.seed(in: live.gateway)
        #expect(!String(decoding: archive, as: UTF8.self).contains(seed), "the seed in clear in the archive")

        // The answer is what restore reads: on a state directory emptied as a lost disk would be.
        await live.gateway.stop()
        let file = live.gateway.directory.appendingPathComponent("from-mqtt.hap2mqtt-backup")
        try archive.write(to: file)
        try FileManager.default.removeItem(at: live.gateway.stateDirectory)
        let restore = try await live.gateway.runCommand([
            "restore", "--from", file.path, "--passphrase-file",
            try BackupRestoreTests.passphraseFile(live.gateway, passphrase),
        ])
        #expect(restore.status == 0, "\(restore.output)")
        await live.observer.clear()
        try await live.startAndExpectEveryAccessoryReachable()
        for secret in [seed, passphrase] {
            #expect(!live.gateway.log.contains(secret), "a secret in the log")
        }
        await live.stop()
    }
}
