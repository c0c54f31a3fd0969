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
        for _ in 0..<2 {
            if let c = try? await TCPConnection.connect(host: "127.0.0.1", port: blackHole.port, timeout: .seconds(1)) {
                fillers.append(c)
            }
        }
        defer { for c in fillers { c.close() } }
        let good = try LoopbackListener.open()
        defer { good.close() }

        // The hanging connects outlast any wait below by far, so the order of completion tells whether
        // the good connect had to wait for them; no clock is read.
        let started = Recorder<Int>()
        let finished = Recorder<Int>()
        let hanging = (0..<8).map { n in
            Task {
                started.append(n)
                _ = try? await TCPConnection.connect(host: "127.0.0.1", port: blackHole.port, timeout: .seconds(120))
                finished.append(n)
            }
        }
        defer { for task in hanging { task.cancel() } }
        try await eventually("the hanging connects started", timeout: .seconds(60)) {
            started.elements.count == hanging.count
        }

        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: good.port, timeout: .seconds(60))
        connection.close()
        #expect(finished.elements.isEmpty, "a hanging connect ended before the good one: \(finished.elements)")
        for task in hanging { task.cancel() }
        for task in hanging { await task.value }
        #expect(finished.elements.count == hanging.count, "every hanging connect ends when cancelled")
    }
}
