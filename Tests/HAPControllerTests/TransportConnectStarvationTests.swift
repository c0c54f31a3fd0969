import HAP2MQTTTesting
import HAPController
import Testing

@Suite("TCP transport: connects that hang")
struct TransportConnectStarvationTests {
    @Test("accessories that never answer a connect do not hold up a connect to one that does")
    func hangingConnectsDoNotStarveOthers() async throws {
        // A listener that never accepts, with its backlog full: the kernel drops further SYNs, so
        // connects to it hang until their time-out, all on loopback.
        let blackHole = try LoopbackListener.open(backlog: 0)
        defer { blackHole.close() }
        var fillers: [TCPConnection] = []
        for _ in 0..<2 { if let c = try? await TCPConnection.connect(host: "127.0.0.1", port: blackHole.port, timeout: .seconds(1)) { fillers.append(c) } }
        let good = try LoopbackListener.open()
        defer { good.close() }
        let started = ContinuousClock.now
        let hanging = (0..<8).map { _ in
            Task { try? await TCPConnection.connect(host: "127.0.0.1", port: blackHole.port, timeout: .seconds(6)) }
        }
        try await Task.sleep(for: .milliseconds(300))
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: good.port, timeout: .seconds(10))
        #expect(ContinuousClock.now - started < .seconds(3), "a reachable accessory waited for the unreachable ones")
        connection.close()
        for task in hanging { task.cancel() }
        for c in fillers { c.close() }
    }
}
