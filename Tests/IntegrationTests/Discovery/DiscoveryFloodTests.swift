import Foundation
import HAP2MQTTTesting
import Testing

/// Hostile announcements through a real avahi-daemon (`Tests/Fixtures/mdns_flood.py`): hundreds of
/// `_hap._tcp` services with nonsense TXT records that appear and vanish at once, most of them before
/// they can be resolved, while `hap2mqtt discover` and `hap2mqtt run` listen. Runs only inside a private
/// network namespace of its own (`DiscoveryNamespaceTests` starts it): the flood fills that namespace's
/// loopback and daemon, which would cost the other discovery tests their packets and their timing.
@Suite(
    "discovery under a flood of announcements through Avahi",
    .enabled(if: AvahiNamespace.isInside, "runs inside a private network namespace (DiscoveryNamespaceTests)"))
struct DiscoveryFloodTests {
    /// The resident memory of the running gateway (`VmRSS` of `/proc/<pid>/status`), in KiB.
    static func residentKiB(_ gateway: GatewayProcess) throws -> Int {
        let pid = try #require(gateway.processIdentifier, "the gateway runs")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
    }

    /// How many discovery log lines name each flood service (`"Flood N"`).
    static func linesPerService(_ log: String) -> [Substring: Int] {
        var counts: [Substring: Int] = [:]
        for line in log.split(separator: "\n") where line.contains(" discovery: ") {
            guard let start = line.range(of: "\"Flood ")?.lowerBound,
                let end = line[line.index(after: start)...].firstIndex(of: "\"")
            else { continue }
            counts[line[start...end], default: 0] += 1
        }
        return counts
    }

    @Test(
        "services that vanish mid-resolve and nonsense TXT records: discover and run keep working, one log line per service"
    )
    func flood() async throws {
        let live = try await LiveGateway.start(announced: true)
        try await live.waitUntilOnline()
        let id = try await live.accessory.status().pairingID
        let before = try Self.residentKiB(live.gateway)
        // discover listens well beyond the flood: under it the daemon answers slowly, and most services are
        // gone before they resolve.
        let listing = Task {
            try await live.gateway.runCommand(["discover", "--json", "--timeout", "30"], timeout: .seconds(180))
        }
        let sent = try await AvahiNamespace.flood(seconds: 3, batch: 50)
        let discovered = try await listing.value
        #expect(sent >= 500)
        #expect(discovered.status == 0, "\(discovered.output.suffix(3000))")
        #expect(discovered.output.contains(#""id":"\#(id)""#), "the real accessory is still listed")
        // Each service is logged at most once (by its name, or by its id when it has one), by discover and
        // by the running gateway.
        let listed = Self.linesPerService(discovered.output)
        #expect(!listed.isEmpty, "discover logs the services it sees at debug")
        #expect(listed.values.allSatisfy { $0 == 1 }, "\(listed.filter { $0.value > 1 })")
        let logged = Self.linesPerService(live.gateway.log)
        #expect(logged.values.allSatisfy { $0 == 1 }, "\(logged.filter { $0.value > 1 })")
        // What is kept is bounded (HAPDiscovery.Limits, AvahiSession): the flood leaves no lasting growth.
        let after = try Self.residentKiB(live.gateway)
        #expect(after < before + 64 * 1024, "resident memory grew from \(before) KiB to \(after) KiB")

        #expect(live.gateway.isRunning, "the gateway survived the flood:\n\(live.gateway.log.suffix(3000))")
        try await live.publish("hap2mqtt/switch/switch/on/set", "true")
        try await live.waitFor(
            "hap2mqtt/switch/switch/on/set/result", #"{"status":"ok","value":true}"#, timeout: .seconds(60))
        await live.stop()
    }
}
