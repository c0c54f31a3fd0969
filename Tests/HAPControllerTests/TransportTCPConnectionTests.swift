import HAP2MQTTTesting
import HAPController
import Testing

/// Receives from `connection` until `count` bytes have come.
func receive(_ connection: TCPConnection, count: Int) async throws -> [UInt8] {
    var out: [UInt8] = []
    while out.count < count { out += try await connection.receive() }
    return out
}

/// A connection to a fresh loopback listener, with the accepted server side.
struct TestPeer {
    let listener: LoopbackListener
    let connection: TCPConnection
    let server: Int32

    static func connect(listeningOn address: String = "127.0.0.1", host: String? = nil) async throws -> TestPeer {
        let listener = try LoopbackListener.open(address)
        async let accepted = listener.accept()
        let connection = try await TCPConnection.connect(host: host ?? address, port: listener.port)
        return TestPeer(listener: listener, connection: connection, server: await accepted)
    }

    func close() {
        connection.close()
        LoopbackSocket.close(server)
        listener.close()
    }
}

@Suite("TCP transport")
struct TransportTCPConnectionTests {
    @Test("connects, sends a request in one piece, receives the answer as it arrives, and closes")
    func roundTrip() async throws {
        let peer = try await TestPeer.connect()
        defer { peer.close() }
        let (connection, server) = (peer.connection, peer.server)
        #expect(connection.remoteAddress == "127.0.0.1")

        let request = HTTPRequest.get("/accessories").encoded(host: connection.remoteAddress)
        try await connection.send(request)
        #expect(await LoopbackSocket.read(server, count: request.count) == request)

        let answer = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        await LoopbackSocket.write(server, Array(answer[0..<5]))
        await LoopbackSocket.write(server, Array(answer[5...]))
        #expect(try await receive(connection, count: answer.count) == answer)

        connection.close()
        #expect(await LoopbackSocket.readsEndOfStream(server), "the accessory sees the close")
        await #expect(throws: TCPError.closed) { try await connection.receive() }
        await #expect(throws: TCPError.closed) { try await connection.send([1]) }
        connection.close()
    }

    @Test("bytes sent before the peer closes are delivered, then the close is reported")
    func peerCloses() async throws {
        let peer = try await TestPeer.connect()
        defer { peer.listener.close() }
        let connection = peer.connection
        await LoopbackSocket.write(peer.server, Array("bye".utf8))
        LoopbackSocket.close(peer.server)
        #expect(try await receive(connection, count: 3) == Array("bye".utf8))
        await #expect(throws: TCPError.closedByPeer) { try await connection.receive() }
        await #expect(throws: TCPError.closedByPeer) { try await connection.receive() }
    }

    @Test("a port nobody listens on is refused")
    func refused() async throws {
        let listener = try LoopbackListener.open()
        let port = listener.port
        listener.close()
        await #expect(throws: TCPError.connectionRefused(host: "127.0.0.1", port: port)) {
            try await TCPConnection.connect(host: "127.0.0.1", port: port)
        }
    }

    @Test("a connect that gets no answer times out")
    func timeout() async throws {
        // A listener that never accepts, with a full queue, drops further SYNs: connects hang.
        let listener = try LoopbackListener.open(backlog: 0)
        defer { listener.close() }
        var held: [TCPConnection] = []
        var outcome: TCPError?
        for _ in 0..<8 where outcome == nil {
            do {
                held.append(
                    try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(300))
                )
            } catch {
                outcome = error
            }
        }
        #expect(outcome == .connectTimedOut(host: "127.0.0.1", port: listener.port, seconds: 0.3))
        #expect(outcome?.description == "no connection to 127.0.0.1:\(listener.port) within 0.3 s")
        for socket in held { socket.close() }
    }

    @Test("IPv6 literals, bracketed or not, and host names connect", arguments: ["::1", "[::1]", "localhost"])
    func addresses(_ host: String) async throws {
        let peer = try await TestPeer.connect(listeningOn: host == "localhost" ? "127.0.0.1" : "::1", host: host)
        defer { peer.close() }
        let (connection, server) = (peer.connection, peer.server)
        #expect(connection.remoteAddress == (host == "localhost" ? "127.0.0.1" : "::1"))
        try await connection.send([42])
        #expect(await LoopbackSocket.read(server, count: 1) == [42])
        connection.close()
    }

    @Test("a name that does not resolve fails with the resolver's reason")
    func unresolvable() async {
        await #expect {
            try await TCPConnection.connect(host: "no-such-accessory.invalid", port: 80)
        } throws: { error in
            guard case .resolutionFailed(let host, _)? = error as? TCPError else { return false }
            return host == "no-such-accessory.invalid"
        }
    }

    @Test("closing wakes a waiting receive; a cancelled receive leaves the connection usable")
    func closeAndCancel() async throws {
        let peer = try await TestPeer.connect()
        defer { peer.close() }
        let (connection, server) = (peer.connection, peer.server)

        let waiting = Task { try await connection.receive() }
        waiting.cancel()
        await #expect(throws: TCPError.cancelled) { try await waiting.value }
        await LoopbackSocket.write(server, [7, 8])
        #expect(try await receive(connection, count: 2) == [7, 8])

        let blocked = Task { try await connection.receive() }
        try await Task.sleep(for: .milliseconds(50))
        connection.close()
        await #expect(throws: TCPError.closed) { try await blocked.value }
    }

    @Test("a large answer arrives complete and in order even when the reader has to pause")
    func largeTransfer() async throws {
        let peer = try await TestPeer.connect()
        defer { peer.close() }
        let (connection, server) = (peer.connection, peer.server)
        // Filled in place: a closure per byte (map) held one of the test run's two cooperative threads for
        // seconds in a debug build, stalling every other test meanwhile.
        let payload = [UInt8](unsafeUninitializedCapacity: 6 << 20) { bytes, count in
            for i in 0..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i >> 12) }
            count = bytes.count
        }
        let writer = Task { await LoopbackSocket.write(server, payload) }
        try await Task.sleep(for: .milliseconds(300))  // let more than the 4 MiB buffer arrive unread
        let received = try await receive(connection, count: payload.count)
        #expect(await writer.value)
        #expect(received.count == payload.count)
        #expect(received == payload)
        connection.close()
    }

    @Test("sends from several tasks arrive whole, one after another")
    func concurrentSends() async throws {
        let peer = try await TestPeer.connect()
        defer { peer.close() }
        let (connection, server) = (peer.connection, peer.server)
        let messages = (0..<20).map { i in [UInt8](repeating: UInt8(i), count: 1000 + i) }
        await withThrowingTaskGroup(of: Void.self) { group in
            for m in messages { group.addTask { try await connection.send(m) } }
        }
        let all = await LoopbackSocket.read(server, count: messages.reduce(0) { $0 + $1.count })
        var runs: [[UInt8]] = []
        for byte in all {
            if runs.last?.first == byte { runs[runs.count - 1].append(byte) } else { runs.append([byte]) }
        }
        #expect(Set(runs) == Set(messages), "each send is one unbroken run")
        connection.close()
    }
}
