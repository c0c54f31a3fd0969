import Dispatch
import HAPController
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket the tests open on loopback, and blocking socket helpers run off the cooperative pool.
struct TestListener: Sendable {
    let fd: Int32
    let port: UInt16

    enum Failure: Error { case system(String) }

    /// Listens on `address` (`127.0.0.1` or `::1`) on a free port.
    static func open(_ address: String = "127.0.0.1", backlog: Int32 = 8) throws -> TestListener {
        let v6 = address.contains(":")
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let fd = socket(v6 ? AF_INET6 : AF_INET, stream, 0)
        guard fd >= 0 else { throw Failure.system("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var port: UInt16 = 0
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            inet_pton(AF_INET6, address, &a.sin6_addr)
            guard bindAndName(fd, &a) else { throw Failure.system("bind") }
            port = UInt16(bigEndian: a.sin6_port)
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, address, &a.sin_addr)
            guard bindAndName(fd, &a) else { throw Failure.system("bind") }
            port = UInt16(bigEndian: a.sin_port)
        }
        guard listen(fd, backlog) == 0 else { throw Failure.system("listen") }
        return TestListener(fd: fd, port: port)
    }

    /// Binds to `address` and reads back the address with the port the system chose.
    private static func bindAndName<A>(_ fd: Int32, _ address: inout A) -> Bool {
        var length = socklen_t(MemoryLayout<A>.size)
        return withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
    }

    /// Waits for one connection and returns its descriptor.
    func accept() async -> Int32 { await TestSockets.blocking { Glibc_accept(fd) } }

    func close() { _ = TestSockets.closeDescriptor(fd) }
}

enum TestSockets {
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in DispatchQueue.global().async { c.resume(returning: work()) } }
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) async {
        await blocking {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count, let base = raw.baseAddress {
                    let n = Glibc_send(fd, base + offset, raw.count - offset)
                    if n <= 0 { return }
                    offset += n
                }
            }
        }
    }

    /// Reads until `count` bytes or the end of the stream.
    static func read(_ fd: Int32, count: Int) async -> [UInt8] {
        await blocking {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while out.count < count {
                let n = buffer.withUnsafeMutableBytes { Glibc_recv(fd, $0.baseAddress!, min($0.count, count - out.count)) }
                if n <= 0 { break }
                out += buffer[0..<n]
            }
            return out
        }
    }

    /// Whether the peer has closed: a read returns end of stream.
    static func readsEndOfStream(_ fd: Int32) async -> Bool {
        await blocking {
            var byte: UInt8 = 0
            return Glibc_recv(fd, &byte, 1) == 0
        }
    }

    @discardableResult
    static func closeDescriptor(_ fd: Int32) -> Int32 { Glibc_close(fd) }

    /// Receives until `count` bytes have come.
    static func receive(_ connection: TCPConnection, count: Int) async throws -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count { out += try await connection.receive() }
        return out
    }
}

#if canImport(Glibc)
private let Glibc_accept: @Sendable (Int32) -> Int32 = { Glibc.accept($0, nil, nil) }
private let Glibc_send: @Sendable (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.send($0, $1, $2, Int32(MSG_NOSIGNAL)) }
private let Glibc_recv: @Sendable (Int32, UnsafeMutableRawPointer, Int) -> Int = { Glibc.recv($0, $1, $2, 0) }
private let Glibc_close: @Sendable (Int32) -> Int32 = { Glibc.close($0) }
#else
private let Glibc_accept: @Sendable (Int32) -> Int32 = { Darwin.accept($0, nil, nil) }
private let Glibc_send: @Sendable (Int32, UnsafeRawPointer, Int) -> Int = { Darwin.send($0, $1, $2, 0) }
private let Glibc_recv: @Sendable (Int32, UnsafeMutableRawPointer, Int) -> Int = { Darwin.recv($0, $1, $2, 0) }
private let Glibc_close: @Sendable (Int32) -> Int32 = { Darwin.close($0) }
#endif

/// A connection to a fresh loopback listener, with the accepted server side.
struct TestPeer {
    let listener: TestListener
    let connection: TCPConnection
    let server: Int32

    static func connect(listeningOn address: String = "127.0.0.1", host: String? = nil) async throws -> TestPeer {
        let listener = try TestListener.open(address)
        async let accepted = listener.accept()
        let connection = try await TCPConnection.connect(host: host ?? address, port: listener.port)
        return TestPeer(listener: listener, connection: connection, server: await accepted)
    }

    func close() {
        connection.close()
        TestSockets.closeDescriptor(server)
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
        #expect(await TestSockets.read(server, count: request.count) == request)

        let answer = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        await TestSockets.write(server, Array(answer[0..<5]))
        await TestSockets.write(server, Array(answer[5...]))
        #expect(try await TestSockets.receive(connection, count: answer.count) == answer)

        connection.close()
        #expect(await TestSockets.readsEndOfStream(server), "the accessory sees the close")
        await #expect(throws: TCPError.closed) { try await connection.receive() }
        await #expect(throws: TCPError.closed) { try await connection.send([1]) }
        connection.close()
    }

    @Test("bytes sent before the peer closes are delivered, then the close is reported")
    func peerCloses() async throws {
        let peer = try await TestPeer.connect()
        defer { peer.listener.close() }
        let connection = peer.connection
        await TestSockets.write(peer.server, Array("bye".utf8))
        TestSockets.closeDescriptor(peer.server)
        #expect(try await TestSockets.receive(connection, count: 3) == Array("bye".utf8))
        await #expect(throws: TCPError.closedByPeer) { try await connection.receive() }
        await #expect(throws: TCPError.closedByPeer) { try await connection.receive() }
    }

    @Test("a port nobody listens on is refused")
    func refused() async throws {
        let listener = try TestListener.open()
        let port = listener.port
        listener.close()
        await #expect(throws: TCPError.connectionRefused(host: "127.0.0.1", port: port)) {
            try await TCPConnection.connect(host: "127.0.0.1", port: port)
        }
    }

    @Test("a connect that gets no answer times out")
    func timeout() async throws {
        // A listener that never accepts, with a full queue, drops further SYNs: connects hang.
        let listener = try TestListener.open(backlog: 0)
        defer { listener.close() }
        var held: [TCPConnection] = []
        var outcome: TCPError?
        for _ in 0..<8 where outcome == nil {
            do {
                held.append(try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(300)))
            } catch {
                outcome = error
            }
        }
        #expect(outcome == .connectTimedOut(host: "127.0.0.1", port: listener.port, seconds: 0.3))
        #expect(outcome?.description == "no connection to 127.0.0.1:\(listener.port) within 0.3 s")
        held.forEach { $0.close() }
    }

    @Test("IPv6 literals, bracketed or not, and host names connect", arguments: ["::1", "[::1]", "localhost"])
    func addresses(_ host: String) async throws {
        let peer = try await TestPeer.connect(listeningOn: host == "localhost" ? "127.0.0.1" : "::1", host: host)
        defer { peer.close() }
        let (connection, server) = (peer.connection, peer.server)
        #expect(connection.remoteAddress == (host == "localhost" ? "127.0.0.1" : "::1"))
        try await connection.send([42])
        #expect(await TestSockets.read(server, count: 1) == [42])
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
        await TestSockets.write(server, [7, 8])
        #expect(try await TestSockets.receive(connection, count: 2) == [7, 8])

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
        let payload = (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let writer = Task { await TestSockets.write(server, payload) }
        try await Task.sleep(for: .milliseconds(300))  // let more than the 4 MiB buffer arrive unread
        let received = try await TestSockets.receive(connection, count: payload.count)
        await writer.value
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
        let all = await TestSockets.read(server, count: messages.reduce(0) { $0 + $1.count })
        var runs: [[UInt8]] = []
        for byte in all {
            if runs.last?.first == byte { runs[runs.count - 1].append(byte) } else { runs.append([byte]) }
        }
        #expect(Set(runs) == Set(messages), "each send is one unbroken run")
        connection.close()
    }
}
