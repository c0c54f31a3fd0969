import Foundation
import HAP2MQTTTesting
import Testing

/// Runs the discovery tests (`Tests/IntegrationTests/Discovery`) where mDNS may be used: this test binary
/// again, inside a private network namespace with its own avahi-daemon (`scripts/lib/avahi-namespace`),
/// with the broker, the accessories and the gateway on the namespace's loopback. The suites named
/// `DiscoveryLive…` share one namespace; the flood (`DiscoveryFloodTests`) gets one of its own, after. Where no
/// namespace can be made it says why and skips, unless `HAP2MQTT_REQUIRE_AVAHI_NAMESPACE=1` (CI), where
/// it fails.
@Suite("discovery through Avahi in a private network namespace")
struct DiscoveryNamespaceTests {
    @Test(
        "the discovery suites pass inside a private network namespace with its own avahi-daemon",
        .enabled(if: !AvahiNamespace.isInside && AvahiNamespace.canRun, Comment(rawValue: AvahiNamespace.skipReason)),
        .serialized,  // each runs a gateway, accessories and a daemon: one at a time beside the rest of the suite
        arguments: ["DiscoveryLive", "DiscoveryFloodTests"])
    func inNamespace(suites: String) async throws {
        try #require(AvahiNamespace.problem == nil, Comment(rawValue: AvahiNamespace.skipReason))
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let (status, output) = try await AvahiNamespace.run(
            binary, ["--testing-library", "swift-testing", "--filter", suites], timeout: .seconds(900))
        let ran = output.split(separator: "\n").last { $0.contains("Test run with") } ?? "no test run"
        #expect(status == 0, "the \(suites) tests failed in the namespace (\(ran)):\n\(output.suffix(30_000))")
        #expect(ran.contains("passed") && !ran.contains("with 0 tests"), "\(ran)")
    }
}
