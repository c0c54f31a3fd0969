// swift-format-ignore-file: AlwaysUseLowerCamelCase
// Why: the decoded fields are named as discover --json writes them.

import Foundation
import HAP2MQTTTesting
import Testing

/// `hap2mqtt discover` and `hap2mqtt pair --id` against HAP-python accessories that announce themselves
/// through their own zeroconf, found through a real avahi-daemon. Runs only inside a private network
/// namespace (`DiscoveryNamespaceTests` starts it).
@Suite(
    "discover and pair --id with Avahi",
    .enabled(if: AvahiNamespace.isInside, "runs inside a private network namespace (DiscoveryNamespaceTests)"))
struct DiscoveryLiveCommandTests {
    /// One line of `hap2mqtt discover --json`.
    struct Listed: Decodable, Equatable {
        var id: String
        var name: String
        var model: String?
        var category: String
        var category_id: Int
        var host: String
        var addresses: [String]
        var port: Int
        var configuration_number: Int?
        var state_number: Int?
        var status_flags: Int
        var feature_flags: Int
        var protocol_version: String?
        var paired: Bool
        var paired_with_gateway: Bool
        var pairing: String?
    }

    /// `hap2mqtt discover --json --timeout 2` until it lists every id of `ids` with `condition` true; the
    /// last listing.
    static func discover(
        _ gateway: GatewayProcess, ids: [String], timeout: Duration = .seconds(30),
        until condition: @escaping ([String: Listed]) -> Bool = { _ in true }
    ) async throws -> [String: Listed] {
        var listed: [String: Listed] = [:]
        try await eventually("hap2mqtt discover to list \(ids)", timeout: timeout) {
            let result = try await gateway.runCommand(["discover", "--json", "--timeout", "2"])
            #expect(result.status == 0, "\(result.output)")
            listed = [:]
            for line in result.output.split(separator: "\n") where line.hasPrefix("{") {
                let entry = try JSONDecoder().decode(Listed.self, from: Data(line.utf8))
                listed[entry.id] = entry
            }
            return ids.allSatisfy { listed[$0] != nil } && condition(listed)
        }
        return listed
    }

    @Test(
        "discover lists the accessories with their fields; pair --id pairs one, which then shows as paired with this gateway"
    )
    func discoverAndPair() async throws {
        let broker = try await MosquittoBroker()
        let first = try await HAPPythonAccessory.start(announced: true)
        let second = try await HAPPythonAccessory.start(announced: true)
        let gateway = try GatewayProcess(brokerURL: broker.url)
        let (a, b) = (try await first.status(), try await second.status())

        let before = try await Self.discover(gateway, ids: [a.pairingID, b.pairingID])
        let suffix = a.pairingID.replacingOccurrences(of: ":", with: "").suffix(6)
        #expect(
            before[a.pairingID]
                == Listed(
                    id: a.pairingID, name: "hap2mqtt Test Bridge \(suffix)", model: "hap2mqtt Test Bridge",
                    category: "bridge", category_id: 2,
                    host: "hap2mqtt-Test-Bridge-\(suffix).local", addresses: ["127.0.0.1"], port: Int(first.port),
                    configuration_number: a.configVersion, state_number: 1, status_flags: 1, feature_flags: 0,
                    protocol_version: "1.1",
                    paired: false, paired_with_gateway: false, pairing: nil))
        #expect(before[b.pairingID]?.port == Int(second.port))
        // The table on standard output, between the gateway's debug lines on standard error.
        let table = try await gateway.runCommand(["discover", "--timeout", "2"]).output.split(separator: "\n").filter {
            !$0.hasPrefix("20")
        }
        #expect(table.first?.hasPrefix("NAME ") == true && table.first?.hasSuffix(" PAIRED") == true, "\(table)")
        let row = try #require(table.first { $0.contains(a.pairingID) })
        #expect(
            row.hasPrefix("hap2mqtt Test Bridge \(suffix)  ")
                && row.hasSuffix(
                    "  127.0.0.1  \(first.port)  \(a.configVersion)   1   no: hap2mqtt pair --id \(a.pairingID)"),
            "\(row)")

        let paired = try await gateway.runCommand(["pair", "--id", a.pairingID.lowercased(), "--code", first.setupCode])
        #expect(paired.status == 0, "\(paired.output)")
        #expect(
            paired.output.contains(
                "paired with \"hap2mqtt Test Bridge\" (accessory id \(a.pairingID)) at 127.0.0.1:\(first.port)"),
            "\(paired.output)")
        #expect(try await first.status().paired)

        let after = try await Self.discover(gateway, ids: [a.pairingID, b.pairingID]) {
            $0[a.pairingID]?.paired == true
        }
        #expect(
            after[a.pairingID]?.paired_with_gateway == true && after[a.pairingID]?.pairing == "hap2mqtt Test Bridge")
        #expect(after[a.pairingID]?.status_flags == 0)
        #expect(after[b.pairingID]?.paired == false)
        await first.stop()
        await second.stop()
        await broker.stop()
    }

    @Test(
        "pair --id with an accessory that announces it is paired fails with the usual error before any pair-setup; an unknown id says so"
    )
    func pairRefused() async throws {
        let broker = try await MosquittoBroker()
        let accessory = try await HAPPythonAccessory.start(announced: true)
        let id = try await accessory.status().pairingID
        let other = try GatewayProcess(brokerURL: broker.url)
        let pairedElsewhere = try await other.runCommand(["pair", "--id", id, "--code", accessory.setupCode])
        try #require(pairedElsewhere.status == 0, "\(pairedElsewhere.output)")
        let gateway = try GatewayProcess(brokerURL: broker.url)
        _ = try await Self.discover(gateway, ids: [id]) { $0[id]?.paired == true }

        // Frozen, it could not answer a pair-setup: the error can only come from its announcement.
        accessory.pause()
        let refused = try await gateway.runCommand(["pair", "--id", id, "--code", accessory.setupCode])
        #expect(refused.status == 1)
        #expect(
            refused.output.contains(
                "hap2mqtt: already paired with another controller: remove that pairing first, or reset the accessory"),
            "\(refused.output)")
        let mine = try await other.runCommand(["pair", "--id", id, "--code", accessory.setupCode])
        #expect(mine.status == 1 && mine.output.contains("is this controller's pairing"), "\(mine.output)")
        accessory.resume()

        let unknown = try await gateway.runCommand(["pair", "--id", "01:02:03:04:05:06", "--code", accessory.setupCode])
        #expect(unknown.status == 1)
        #expect(
            unknown.output.contains("no accessory with id 01:02:03:04:05:06 announced itself within 10 seconds"),
            "\(unknown.output)")
        await accessory.stop()
        await broker.stop()
    }
}
