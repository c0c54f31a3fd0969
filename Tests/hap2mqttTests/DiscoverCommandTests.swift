import Foundation
import HAP2MQTTTesting
import Testing

@Suite("hap2mqtt discover")
struct DiscoverCommandTests {
    @Test("says it is not available and how to find accessories instead, with status 1")
    func notAvailable() async throws {
        let result = try await ExecutableTests.run(["discover"], directory: FileManager.default.temporaryDirectory.path)
        let text = result.error
        #expect(result.status == 1)
        #expect(text.hasPrefix("hap2mqtt: discover is not available in this version"))
        #expect(text.contains("avahi-browse -rt _hap._tcp"))
        #expect(text.filter { $0 == "\n" }.count == 1, "one line: \(text)")
    }
}
