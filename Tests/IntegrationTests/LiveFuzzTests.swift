import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// Every command topic of a running `hap2mqtt` (each characteristic's `/set` and `/get`, each accessory's
/// `/set`, the bridge requests), given the hostile payloads of docs/security.md: empty, 1 MB, invalid
/// UTF-8, NUL, 10,000-deep JSON, numbers that do not survive reading, NaN, duplicate keys, wrong types.
/// Bounded in count (a few thousand messages) and time.
@Suite("hap2mqtt run with a real accessory: fuzzed commands", .serialized)
struct LiveFuzzTests {
    /// One hostile payload, and whether every characteristic that is not a string must refuse it.
    struct Payload {
        var name: String
        var bytes: [UInt8]
        var refusedByNumbersAndBools: Bool
    }

    static let deepJSON =
        Array(String(repeating: "[", count: 10_000).utf8) + Array(String(repeating: "]", count: 10_000).utf8)

    static let payloads: [Payload] = [
        Payload(name: "empty", bytes: [], refusedByNumbersAndBools: true),
        Payload(
            name: "1 MB", bytes: Array(repeating: UInt8(ascii: "7"), count: 1_000_000), refusedByNumbersAndBools: true),
        Payload(name: "invalid UTF-8", bytes: [0xC3, 0x28, 0xFF, 0x31], refusedByNumbersAndBools: true),
        Payload(name: "NUL", bytes: [0x31, 0x00, 0x32], refusedByNumbersAndBools: true),
        Payload(name: "10,000-deep JSON", bytes: deepJSON, refusedByNumbersAndBools: true),
        Payload(name: "1e400", bytes: Array("1e400".utf8), refusedByNumbersAndBools: true),
        Payload(name: "1e-400", bytes: Array("1e-400".utf8), refusedByNumbersAndBools: true),
        Payload(name: "NaN", bytes: Array("NaN".utf8), refusedByNumbersAndBools: true),
        Payload(
            name: "duplicate keys", bytes: Array(#"{"lightbulb":{"on":true,"on":"x"},"lightbulb":1}"#.utf8),
            refusedByNumbersAndBools: true),
        Payload(name: "wrong type", bytes: Array(#"{"value":[1,2]}"#.utf8), refusedByNumbersAndBools: true),
    ]

    /// The resident size of process `pid` in bytes (`VmRSS` of `/proc/<pid>/status`; `VmHWM` for its peak).
    static func residentBytes(of pid: Int32, field: String = "VmRSS") -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
            let kB = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kB * 1024
    }

    @Test(
        "no crash, an error result for every refused command, no refused write at the accessory, bounded memory",
        .timeLimit(.minutes(10)))
    func fuzz() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let pid = try #require(live.gateway.processIdentifier)
        let list = try await live.accessoryList()
        let startRSS = try #require(Self.residentBytes(of: pid))

        // Every command topic, with the formats of the characteristics that must refuse.
        var commands: [(topic: String, mustRefuse: Bool)] = []
        for accessory in list {
            for service in accessory.services {
                for c in service.characteristics {
                    let numeric = !["string", "tlv8", "data", "array", "dict"].contains(c.format ?? "string")
                    commands.append((c.topic + "/set", numeric || !c.perms.contains("pw")))
                    commands.append((c.topic + "/get", false))
                }
            }
            commands.append((accessory.topic + "/set", true))
        }
        for request in ["rename", "identify", "restart", "nonsense"] {
            commands.append(("hap2mqtt/bridge/request/\(request)", true))
        }

        try await live.observer.subscribe(["hap2mqtt/response/fuzz"])
        var expected: [String: (topic: String, payload: String, mustRefuse: Bool)] = [:]
        var sent = 0
        var peakRSS = startRSS
        // In rounds that the gateway's inbound queue (1,000 messages) holds, each waited for.
        for payload in Self.payloads {
            for (topic, mustRefuse) in commands {
                // The megabyte goes to every fourth topic: a few hundred MB through the broker is enough.
                if payload.name == "1 MB", sent % 4 != 0 {
                    sent += 1
                    continue
                }
                let key = "\(sent)"
                sent += 1
                expected[key] = (topic, payload.name, mustRefuse && payload.refusedByNumbersAndBools)
                try await live.observer.publish(
                    MQTTMessage(
                        topic: topic, payload: payload.bytes, qos: .atLeastOnce,
                        properties: MQTTProperties(
                            responseTopic: "hap2mqtt/response/fuzz", correlationData: Array(key.utf8))))
            }
            try await eventually("every \(payload.name) command to be answered", timeout: .seconds(120)) {
                if let rss = Self.residentBytes(of: pid) { peakRSS = max(peakRSS, rss) }
                let answered = Set(
                    await live.observer.messages(on: "hap2mqtt/response/fuzz").compactMap {
                        $0.properties.correlationData.map { String(decoding: $0, as: UTF8.self) }
                    })
                return expected.keys.allSatisfy(answered.contains)
            }
            #expect(
                live.gateway.isRunning,
                "hap2mqtt stopped after the \(payload.name) payloads:\n\(live.gateway.log.suffix(3000))")
        }

        var okWrites = 0
        var refusalsChecked = 0
        for reply in await live.observer.messages(on: "hap2mqtt/response/fuzz") {
            guard let key = reply.properties.correlationData.map({ String(decoding: $0, as: UTF8.self) }),
                let command = expected[key], let text = reply.payloadString
            else { continue }
            let refused = text.contains(#""status":"error""#)
            if command.mustRefuse {
                #expect(refused, "\(command.payload) on \(command.topic) was not refused: \(text)")
                refusalsChecked += 1
            } else if !refused, command.topic.hasSuffix("/set") {
                okWrites += 1
            }
        }
        #expect(sent > 1000 && refusalsChecked > 500, "\(sent) commands sent, \(refusalsChecked) refusals checked")
        // Each write the gateway said ok to is at most one setter call; a refused one is none.
        #expect(
            live.accessory.setterCalls.count <= okWrites, "writes reached the accessory: \(live.accessory.setterCalls)")
        #expect(
            peakRSS - startRSS <= 80 * 1024 * 1024,
            "RSS grew from \(startRSS / 1_048_576) MB to a peak of \(peakRSS / 1_048_576) MB")
        // Memory is given back after the burst (the heap is trimmed every few seconds).
        try await eventually("RSS to come back near the start", timeout: .seconds(60)) {
            (Self.residentBytes(of: pid) ?? .max) <= startRSS + 20 * 1024 * 1024
        }
        let logLines = live.gateway.log.split(separator: "\n").count
        #expect(
            logLines < sent / 4,
            "the refusals were logged once a minute per topic, not each: \(logLines) lines for \(sent) commands")
        await live.stop()
    }
}
