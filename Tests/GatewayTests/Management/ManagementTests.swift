import Gateway
import HAP2MQTTTesting
import HomeStore
import Logging
import Synchronization
import Testing

@Suite("Management: the operations the command line, the bridge API and the web page share")
struct ManagementTests {
    let code = EnteredSetupCode("031-45-154")

    @Test("a pair goes to the backend with its code, and the running gateway is told at once")
    func pair() async throws {
        let backend = FakeAccessoryPairing()
        let told = Mutex(0)
        let management = Management(
            pairing: backend, logger: LogCapture().logger(label: "test"), pairingsChanged: { told.withLock { $0 += 1 } }
        )
        let paired = try await management.pair(PairRequest(host: "10.0.0.9", port: 51826, code: code, name: "Desk"))
        #expect(paired == PairedServer(id: "AA:BB:CC:DD:EE:FF", name: "Desk", host: "10.0.0.9", port: 51826))
        #expect(backend.codes == ["031-45-154"])
        #expect(told.withLock { $0 } == 1)
    }

    @Test("a request that names no accessory, has no code, or a bad port is refused before the backend")
    func refusedBeforeContact() async throws {
        let backend = FakeAccessoryPairing()
        let management = Management(pairing: backend, logger: LogCapture().logger(label: "test"))
        await #expect(throws: ManagementError.invalidRequest("give the accessory's setup code (XXX-XX-XXX)")) {
            try await management.pair(PairRequest(host: "10.0.0.9", port: 51826, code: nil))
        }
        await #expect(
            throws: ManagementError.invalidRequest(
                "name the accessory by its id (as discovered), or by its host and port")
        ) {
            try await management.pair(PairRequest(host: "10.0.0.9", code: code))
        }
        await #expect(throws: ManagementError.invalidRequest("the port must be a number from 1 to 65535, not 70000")) {
            try await management.pair(PairRequest(host: "10.0.0.9", port: 70000, code: code))
        }
        await #expect(
            throws: ManagementError.invalidRequest("the name must not contain line breaks or other control characters")
        ) {
            try await management.pair(PairRequest(host: "10.0.0.9", port: 1, code: code, name: "a\nb"))
        }
        #expect(backend.pairCount == 0)
    }

    @Test("a second pair while one is under way is told it is busy; the first goes on")
    func busy() async throws {
        let backend = FakeAccessoryPairing()
        backend.hold()
        let management = Management(pairing: backend, logger: LogCapture().logger(label: "test"))
        let request = PairRequest(host: "10.0.0.9", port: 51826, code: code)
        let first = Task { try await management.pair(request) }
        try await eventually("the first pair reaches the backend") { backend.pairCount == 1 }
        await #expect(
            throws: ManagementError.busy(
                "another pairing is under way (with 10.0.0.9:51826): try again when it has finished")
        ) {
            try await management.pair(request)
        }
        backend.release()
        #expect(try await first.value.host == "10.0.0.9")
        #expect(backend.pairCount == 1)
        // Once it has finished, the next pair runs.
        _ = try await management.pair(request)
        #expect(backend.pairCount == 2)
    }

    @Test("controller pairing operations go to the backend by the name given; refused ones never reach it")
    func controllerPairings() async throws {
        let backend = FakeAccessoryPairing()
        let management = Management(pairing: backend, logger: LogCapture().logger(label: "test"))
        let key = [UInt8](repeating: 7, count: 32)
        _ = try await management.addControllerPairing(
            ControllerPairing(id: "standby", publicKey: key, admin: false), to: "Desk Lamp")
        _ = try await management.controllerPairings(of: "Desk Lamp")
        _ = try await management.removeControllerPairing("standby", from: "AA:BB:CC:DD:EE:FF")
        #expect(
            backend.controllerChanges == [
                "add standby Desk Lamp", "list Desk Lamp", "remove standby AA:BB:CC:DD:EE:FF",
            ])
        await #expect(throws: ManagementError.invalidRequest("give the pairing id of the controller to remove")) {
            try await management.removeControllerPairing("", from: "Desk Lamp")
        }
        await #expect(
            throws: ManagementError.invalidRequest("name the accessory: its topic slug, its id, or its pairing's name")
        ) {
            try await management.controllerPairings(of: " ")
        }
        #expect(backend.controllerChanges.count == 3, "refused requests never reach the backend")
        backend.fail(with: .failed("Desk Lamp: the accessory refused with an authentication error"))
        await #expect(throws: ManagementError.failed("Desk Lamp: the accessory refused with an authentication error")) {
            try await management.controllerPairings(of: "Desk Lamp")
        }
    }

    @Test("the setup code never shows in an error, a description or the log")
    func codeNeverShown() async throws {
        let log = LogCapture()
        let backend = FakeAccessoryPairing()
        backend.fail(with: .wrongSetupCode)
        let management = Management(pairing: backend, logger: log.logger(label: "test"))
        let request = PairRequest(host: "10.0.0.9", port: 51826, code: code)
        await #expect(throws: ManagementError.wrongSetupCode) { try await management.pair(request) }
        #expect("\(code)" == "***-**-***")
        #expect(String(reflecting: code) == "EnteredSetupCode(***-**-***)")
        #expect(!"\(request)".contains("031"))
        #expect(log.lines.allSatisfy { !$0.contains("031-45-154") && !$0.contains("03145154") })
    }

    @Test("unpair without a gateway goes to the backend by the name given; a failure keeps its line")
    func unpair() async throws {
        let backend = FakeAccessoryPairing()
        let management = Management(pairing: backend, logger: LogCapture().logger(label: "test"))
        let result = try await management.unpair("Desk Lamp", force: false)
        #expect(result.outcome == .removed)
        #expect(backend.unpairs.map(\.0) == ["Desk Lamp"])
        await #expect(
            throws: ManagementError.invalidRequest("name the accessory: its topic slug, its id, or its pairing's name")
        ) {
            try await management.unpair(" ", force: false)
        }
        backend.fail(with: .unknownAccessory("no pairing named \"Nobody\": there are no pairings"))
        await #expect(throws: ManagementError.unknownAccessory("no pairing named \"Nobody\": there are no pairings")) {
            try await management.unpair("Nobody", force: true)
        }
    }
}
