import HAP2MQTTTesting
import Logging
import Testing

@testable import HAPController

/// Pair-setup with an address where something other than a HAP accessory listens.
@Suite("HAP controller: pair-setup with something that is not an accessory")
struct HAPControllerNotAnAccessoryTests {
    /// The line a user sees for a failed first exchange with 127.0.0.1:`port` because of `cause`.
    private func hint(_ port: UInt16, _ cause: String) -> String {
        "pair-setup with 127.0.0.1:\(port) failed (\(cause)): is 127.0.0.1:\(port) a HomeKit accessory? "
            + "Check the host and port it announces (avahi-browse -rt _hap._tcp)"
    }

    /// Pairs with whatever listens at `port` and returns the error.
    private func pairingError(port: UInt16) async throws -> HAPControllerError {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let error = await #expect(throws: HAPControllerError.self) {
            try await controller.pair(host: "127.0.0.1", port: port, setupCode: try SetupCode("031-45-154"))
        }
        #expect(await controller.pairings().isEmpty)
        return try #require(error)
    }

    @Test("a server that closes the connection on the first request gets the hint to check host and port")
    func closedOnFirstRequest() async throws {
        let listener = try LoopbackListener.open()
        defer { listener.close() }
        let server = Task {
            let fd = await listener.accept()
            _ = await LoopbackSocket.readLine(fd)
            LoopbackSocket.close(fd)
        }
        let error = try await pairingError(port: listener.port)
        await server.value
        guard case .notAnAccessory("127.0.0.1", listener.port, .connectionLost(let cause)) = error else {
            Issue.record("not notAnAccessory with a lost connection: \(error)")
            return
        }
        #expect(error.description == hint(listener.port, cause.description))
    }

    @Test("a server that answers something other than HTTP gets the hint to check host and port")
    func notHTTP() async throws {
        let listener = try LoopbackListener.open()
        defer { listener.close() }
        let server = Task {
            let fd = await listener.accept()
            _ = await LoopbackSocket.readLine(fd)
            _ = await LoopbackSocket.write(fd, Array("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8))
            _ = await LoopbackSocket.readsEndOfStream(fd)
            LoopbackSocket.close(fd)
        }
        let error = try await pairingError(port: listener.port)
        await server.value
        guard case .notAnAccessory("127.0.0.1", listener.port, .malformedHTTP(let cause)) = error else {
            Issue.record("not notAnAccessory with malformed HTTP: \(error)")
            return
        }
        #expect(error.description == hint(listener.port, "the answer is not HTTP: \(cause)"))
    }

    @Test("an accessory that answers the first step and then drops the connection gets no such hint")
    func lostAfterTheFirstAnswer() async throws {
        let accessory = try ScriptedAccessory()
        let server = Task {
            await accessory.accept()
            try await accessory.answerPairSetup(steps: 1)
            _ = try await accessory.readRequest()
            await accessory.close()
        }
        let error = try await pairingError(port: accessory.port)
        try await server.value
        guard case .connection(.connectionLost) = error else {
            Issue.record("not a lost connection: \(error)")
            return
        }
        #expect(!error.description.contains("HomeKit accessory?"))
    }
}
