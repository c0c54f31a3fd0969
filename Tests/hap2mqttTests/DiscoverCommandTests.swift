import Foundation
import HAP2MQTTTesting
import Testing

@Suite("hap2mqtt discover")
struct DiscoverCommandTests {
    @Test("says it is not available and how to find accessories instead, with status 1")
    func notAvailable() throws {
        let process = Process()
        process.executableURL = try GatewayProcess.binary()
        process.arguments = ["discover"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAP2MQTT_") }
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        let error = Pipe()
        process.standardError = error
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(text.hasPrefix("hap2mqtt: discover is not available in this version"))
        #expect(text.contains("avahi-browse -rt _hap._tcp"))
        #expect(text.filter { $0 == "\n" }.count == 1, "one line: \(text)")
    }
}
