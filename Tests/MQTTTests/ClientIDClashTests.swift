import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

/// Two clients with one client id take the session from each other (MQTT 5 §3.1.4): each connection ends
/// as soon as the other reconnects. The back-off must grow, and the log must say what is going on.
@Suite("Another client with the same client id")
struct ClientIDClashTests {
    // mosquitto 2.0.11 sends no reason code when a session is taken over, with MQTT 5 either (2.0.15 sends
    // 0x8E): against it both versions see a connection dropped at once.
    @Test(
        "a connection dropped at once grows the back-off, and one warning names a clash as one likely cause",
        arguments: [MQTTProtocolVersion.v5, .v311])
    func quickDrops(version: MQTTProtocolVersion) async throws {
        try await clash(
            version, expecting: #"another client connecting with the same client id "twin" is one likely cause"#)
    }

    @Test("MQTT 5: a DISCONNECT with Session taken over (0x8E) is one warning naming the client id; back-off grows")
    func sessionTakenOver() async throws {
        // A broker that, as mosquitto 2.0.15 and later do, tells the client why: CONNACK, then DISCONNECT
        // with reason code 0x8E, on every connection.
        let listener = try LoopbackListener.open()
        defer { listener.close() }
        let server = Task {
            while !Task.isCancelled {
                let fd = await listener.accept()
                guard fd >= 0 else { return }
                // CONNECT: the fixed header and a remaining length under 128 bytes.
                let header = await LoopbackSocket.read(fd, count: 2)
                if header.count == 2, await LoopbackSocket.read(fd, count: Int(header[1])).count == Int(header[1]) {
                    _ = await LoopbackSocket.write(fd, [0x20, 0x03, 0x00, 0x00, 0x00, 0xE0, 0x02, 0x8E, 0x00])
                    _ = await LoopbackSocket.readsEndOfStream(fd)
                }
                LoopbackSocket.close(fd)
            }
        }
        let log = LogCapture()
        var configuration = MQTTConfiguration(url: "mqtt://127.0.0.1:\(listener.port)", clientID: "twin")
        configuration.reconnectDelay = (.milliseconds(200), .seconds(30))
        // The scripted broker answers from threads of its own, which a busy machine may start late.
        configuration.connectTimeout = .seconds(60)
        let client = try MQTTClient(configuration: configuration, logger: log.logger(label: "first"))
        try await client.connect()
        try await check(log, expecting: #"another client connected with this client's id "twin""#)
        await client.disconnect()
        // The server waits in accept(2): one more connection, closed at once, lets it see the cancellation.
        server.cancel()
        if let wake = await LoopbackSocket.connect(port: listener.port) { LoopbackSocket.close(wake) }
        await server.value
    }

    private func clash(_ version: MQTTProtocolVersion, expecting text: String) async throws {
        let broker = try await MosquittoBroker()
        let log = LogCapture()
        func client(_ label: String) throws -> MQTTClient {
            var configuration = MQTTConfiguration(url: broker.url, clientID: "twin")
            configuration.protocolVersion = version
            configuration.reconnectDelay = (.milliseconds(200), .seconds(30))
            configuration.connectTimeout = .seconds(60)
            return try MQTTClient(configuration: configuration, logger: log.logger(label: label))
        }
        let first = try client("first")
        try await first.connect()
        let second = try client("second")
        try await second.connect()

        try await check(log, expecting: text)
        await first.disconnect()
        await second.disconnect()
        await broker.stop()
    }

    /// Waits for the first client's fourth connection to end, then checks how the ends were logged.
    private func check(_ log: LogCapture, expecting text: String) async throws {
        var ends: [LogRecord] {
            log.all.filter { $0.label == "first" && $0.message.contains("ended:") }
        }
        try await eventually("the first client's connection ended four times", timeout: .seconds(60)) {
            ends.count >= 4
        }
        let records = Array(ends.prefix(4))
        let delays = records.map { record in
            record.message.firstMatch(of: #/next attempt in ([0-9.]+) s/#).flatMap { Double($0.1) } ?? 0
        }
        #expect(delays.allSatisfy { $0 > 0 }, "every end names the next attempt: \(records.map(\.message))")
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 < $1 }, "the back-off grows: \(delays)")
        #expect(records[0].level == .warning, "\(records[0].message)")
        #expect(records[0].message.contains(text), "\(records[0].message)")
        #expect(records[0].message.contains("set a unique clientID"), "\(records[0].message)")
        #expect(records.dropFirst().allSatisfy { $0.level == .info }, "one warning a minute: \(records.map(\.level))")
    }
}
