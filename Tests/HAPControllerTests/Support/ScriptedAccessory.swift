import Foundation
import HAP2MQTTTesting
import Testing

@testable import HAPController

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP request as the scripted accessory read it.
struct ScriptedRequest: Sendable {
    /// `GET /accessories HTTP/1.1`.
    var line: String
    /// The header lines, as sent.
    var headers: [String]
    var body: [UInt8]
}

/// A HAP accessory on loopback whose every answer the test writes itself: it accepts one connection, reads
/// the controller's requests (in cleartext, and encrypted after `answerPairVerify`) and sends exactly the
/// bytes it is given, so a test can interleave events with responses, split frames, stay silent or break
/// the session. Pair-setup and pair-verify are answered by `TestAccessory`.
actor ScriptedAccessory {
    nonisolated let port: UInt16
    /// The accessory's pairing id.
    nonisolated let pairingID: String
    private let listener: LoopbackListener
    private var descriptor: Int32 = -1
    private var accessory: TestAccessory
    private var cipher: HAPSessionCipher?
    private var received: [UInt8] = []
    private var listening = true

    init() throws {
        listener = try LoopbackListener.open()
        port = listener.port
        accessory = try TestAccessory()
        pairingID = accessory.pairingID
    }

    /// Registers `controller` as paired (pair-setup done in memory) and returns its pairing.
    func pair(_ controller: ControllerIdentity) throws -> Pairing {
        let result = try pairSetup(&accessory, controller: controller)
        return Pairing(controller: controller, accessory: result, host: "127.0.0.1", port: port)
    }

    /// The session keys of the last pair-verify (the controller's view: it encrypts with
    /// `controllerToAccessory`).
    func sessionKeys() -> SessionKeys? { accessory.sessionKeys }

    /// Waits for the controller to connect. A new connection starts in cleartext with nothing read; an
    /// earlier one is closed.
    func accept() async {
        let listening = listener.descriptor
        let accepted = await Self.onThread { Glibc.accept(listening, nil, nil) }
        if descriptor >= 0 { LoopbackSocket.close(descriptor) }
        descriptor = accepted
        cipher = nil
        received = []
    }

    /// Answers pair-setup M1, M3 and M5 (code `031-45-154`), so the controller ends up paired; with
    /// fewer `steps`, only the first ones.
    func answerPairSetup(steps: Int = 3) async throws {
        for _ in 0..<steps {
            let request = try await readRequest()
            #expect(request.line == "POST /pair-setup HTTP/1.1")
            await write(
                Self.response(body: try accessory.pairSetup(request.body), contentType: HAPContentType.pairingTLV8))
        }
    }

    /// Answers pair-verify M1 and M3; from then on reads and writes are encrypted. `afterM4` is sent
    /// encrypted in the same write as the M4 answer.
    func answerPairVerify(afterM4: [UInt8] = []) async throws {
        let m1 = try await readRequest()
        #expect(m1.line == "POST /pair-verify HTTP/1.1")
        await write(Self.response(body: try accessory.pairVerify(m1.body), contentType: HAPContentType.pairingTLV8))
        let m3 = try await readRequest()
        let m4 = Self.response(body: try accessory.pairVerify(m3.body), contentType: HAPContentType.pairingTLV8)
        var session = try accessory.sessionCipher()
        let extra = afterM4.isEmpty ? [] : try session.seal(afterM4)
        cipher = session
        await write(m4 + extra)
    }

    /// The next request, decrypted when the session is encrypted.
    func readRequest() async throws -> ScriptedRequest {
        while true {
            if let request = takeRequest() { return request }
            try await receiveMore()
        }
    }

    /// Sends `plaintext` (encrypted when the session is), in one write or cut at `cuts` (offsets in the
    /// bytes on the wire) into several writes a few milliseconds apart.
    func send(_ plaintext: [UInt8], cuts: [Int] = []) async throws {
        var wire = plaintext
        if var session = cipher {
            wire = try session.seal(plaintext)
            cipher = session
        }
        var start = 0
        for cut in cuts.sorted() where cut > start && cut < wire.count {
            await write(Array(wire[start..<cut]))
            try await Task.sleep(for: .milliseconds(20))
            start = cut
        }
        await write(Array(wire[start...]))
    }

    /// Sends raw bytes as they are.
    func write(_ bytes: [UInt8]) async {
        let descriptor = self.descriptor
        await Self.onThread {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count, let base = raw.baseAddress {
                    let n = Glibc.send(descriptor, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if n <= 0 { return }
                    offset += n
                }
            }
        }
    }

    /// Whether the controller has sent bytes not read yet (looks without waiting long).
    func hasUnreadBytes(within milliseconds: Int32 = 100) async -> Bool {
        guard received.isEmpty else { return true }
        let descriptor = self.descriptor
        return await Self.onThread {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) > 0
        }
    }

    /// Whether the controller has closed the connection (the next read gives the end of the stream).
    func sawClose() async -> Bool { await Self.receiveSome(descriptor).isEmpty }

    /// Whether the controller reset the connection (the next read fails with `ECONNRESET`) rather than
    /// closing it in order (end of stream) or sending more.
    func sawReset() async -> Bool {
        let descriptor = self.descriptor
        return await Self.onThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress.map { Glibc.recv(descriptor, $0, raw.count, 0) } ?? 0
            }
            return n < 0 && errno == ECONNRESET
        }
    }

    /// Closes the connection and goes on listening, as an accessory that ends a session.
    func dropConnection() {
        if descriptor >= 0 { LoopbackSocket.close(descriptor) }
        descriptor = -1
    }

    /// Closes the connection and stops listening; also done when the accessory goes away.
    func close() {
        if descriptor >= 0 { LoopbackSocket.close(descriptor) }
        descriptor = -1
        if listening { listener.close() }
        listening = false
    }

    deinit {
        if descriptor >= 0 { LoopbackSocket.close(descriptor) }
        if listening { listener.close() }
    }

    /// `HTTP/1.1 <status>` with a body and its length.
    static func response(status: Int = 200, body: [UInt8], contentType: String = HAPContentType.json) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(status == 204 ? "No Content" : "OK")\r\n"
        if status != 204 { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    /// A JSON response.
    static func response(status: Int = 200, json: String) -> [UInt8] {
        response(status: status, body: Array(json.utf8))
    }

    /// An `EVENT/1.0` message with a JSON body, as HAP-NodeJS writes it.
    static func event(_ json: String) -> [UInt8] {
        Array(
            "EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
                .utf8)
    }

    private func receiveMore() async throws {
        let bytes = await Self.receiveSome(descriptor)
        guard !bytes.isEmpty else { throw ScriptedAccessoryError.closed }
        if var session = cipher {
            received += try session.open(bytes)
            cipher = session
        } else {
            received += bytes
        }
    }

    /// What has arrived on `descriptor` (waiting for at least one byte); empty at the end of the stream.
    private static func receiveSome(_ descriptor: Int32) async -> [UInt8] {
        await onThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress.map { Glibc.recv(descriptor, $0, raw.count, 0) } ?? -1
            }
            return n > 0 ? Array(buffer[0..<n]) : []
        }
    }

    /// Runs blocking socket work on a thread of its own: blocked reads on Dispatch's shared threads starve
    /// the controller's sends, which run there too.
    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// A whole request from what was received, or nil when more is needed.
    private func takeRequest() -> ScriptedRequest? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard received.count >= 4,
            let end = (0...(received.count - 4)).first(where: { Array(received[$0..<($0 + 4)]) == separator })
        else { return nil }
        let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let length =
            lines.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        guard received.count >= end + 4 + length else { return nil }
        let body = Array(received[(end + 4)..<(end + 4 + length)])
        received.removeFirst(end + 4 + length)
        return ScriptedRequest(line: lines.first ?? "", headers: Array(lines.dropFirst()), body: body)
    }
}

enum ScriptedAccessoryError: Error {
    /// The controller closed the connection.
    case closed
}
