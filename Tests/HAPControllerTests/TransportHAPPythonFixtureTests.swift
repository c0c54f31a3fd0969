import HAP2MQTTTesting
import HAPController
import HomeModel
import Testing

/// Sends one request over a fresh connection and returns the first response.
func exchange(_ request: HTTPRequest, port: UInt16) async throws -> HTTPMessage {
    let connection = try await TCPConnection.connect(host: "127.0.0.1", port: port)
    defer { connection.close() }
    try await connection.send(request.encoded(host: connection.remoteAddress))
    var parser = HTTPResponseParser()
    while true {
        if let message = try parser.feed(try await connection.receive()).first { return message }
    }
}

@Suite("HAP-python fixture", .serialized)
struct TransportHAPPythonFixtureTests {
    @Test("starts unpaired on loopback and answers unauthenticated HTTP as HAP-python does")
    func answersHTTP() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let status = try await accessory.status()
        #expect(!status.paired)
        #expect(
            status.accessories == ["Light": 2, "Switch": 3, "Temperature": 4, "Lock": 5, "Thermostat": 6, "Blind": 8])
        #expect(status.pairingID.split(separator: ":").count == 6)

        // Without pair-verify HAP-python refuses /accessories with 401 and a HAP status.
        let accessories = try await exchange(HAPRequests.accessories(), port: accessory.port)
        #expect(accessories.kind == .response)
        #expect(accessories.status == 401)
        #expect(
            try HAPCharacteristicResult.status(httpStatus: accessories.status, body: accessories.body)
                == .insufficientPrivileges)

        // HAP-python 5.0.0 has no /identify handler: it answers 500 with -70402.
        let identify = try await exchange(HAPRequests.identifyUnpaired(), port: accessory.port)
        #expect(identify.status == 500)
        #expect(
            try HAPCharacteristicResult.status(httpStatus: identify.status, body: identify.body)
                == .serviceCommunicationFailure)
        await accessory.stop()
        #expect(!accessory.isRunning)
    }

    @Test("the control channel changes and reads values with their types, and refuses unknown names")
    func controlChannel() async throws {
        let accessory = try await HAPPythonAccessory.start()
        #expect(
            try await accessory.value(accessory: "Temperature", characteristic: "CurrentTemperature") == .float(21.5))
        #expect(try await accessory.value(accessory: "Light", characteristic: "On") == .bool(false))
        try await accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
        #expect(try await accessory.value(accessory: "Light", characteristic: "Brightness") == .int(42))
        try await accessory.setValue(accessory: "Switch", characteristic: "On", value: .bool(true))
        #expect(try await accessory.value(accessory: "Switch", characteristic: "On") == .bool(true))
        #expect(try await accessory.value(accessory: "Light", characteristic: "Name") == .string("Light"))
        try await accessory.failWrites(
            accessory: "Lock", characteristic: "LockTargetState", status: .invalidValueInRequest)
        try await accessory.failWrites(accessory: "Lock", characteristic: "LockTargetState", status: nil)
        try await accessory.disconnectClients()
        try await accessory.resetPairings()
        await #expect(throws: HAPPythonAccessoryError.self) {
            try await accessory.setValue(accessory: "Garage", characteristic: "On", value: .bool(true))
        }
        #expect(accessory.setterCalls.isEmpty, "values changed from the accessory side are not writes")
        await accessory.stop()
    }

    @Test("removing and adding accessories bumps c# and survives a restart on the same port; a reset start undoes it")
    func layoutAndRestart() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let before = try await accessory.status()
        let removed = try await accessory.removeAccessory("Switch")
        #expect(removed.accessories["Switch"] == nil)
        #expect(removed.configVersion > before.configVersion)
        let added = try await accessory.addAccessory("Desk Lamp", kind: .light)
        #expect(added.accessories["Desk Lamp"] == 9, "a new aid, never 7 and never a default one")
        #expect(added.configVersion > removed.configVersion)

        await accessory.stop()
        await #expect(throws: TCPError.connectionRefused(host: "127.0.0.1", port: accessory.port)) {
            try await TCPConnection.connect(host: "127.0.0.1", port: accessory.port)
        }
        try await accessory.start()
        let restarted = try await accessory.status()
        #expect(restarted.accessories == added.accessories)
        #expect(restarted.pairingID == before.pairingID, "the state file keeps the accessory's identity")
        #expect(restarted.configVersion == added.configVersion)
        #expect(try await exchange(HAPRequests.accessories(), port: accessory.port).status == 401)

        await accessory.kill()
        #expect(!accessory.isRunning)
        try await accessory.start(reset: true)
        let fresh = try await accessory.status()
        #expect(fresh.accessories == before.accessories)
        #expect(fresh.pairingID != before.pairingID)
        await accessory.stop()
    }

    @Test("a fixed pairing id and setup code are used")
    func fixedIdentity() async throws {
        let accessory = try await HAPPythonAccessory.start(setupCode: "123-45-678", pairingID: "AA:BB:CC:DD:EE:42")
        #expect(accessory.setupCode == "123-45-678")
        #expect(try await accessory.status().pairingID == "AA:BB:CC:DD:EE:42")
        await accessory.stop()
    }
}
