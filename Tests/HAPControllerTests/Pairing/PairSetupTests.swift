import HAP2MQTTTesting
import Testing

@testable import HAPController

@Suite("Pair-setup against a test accessory")
struct PairSetupTests {
    @Test(
        "pairs with a padding accessory and with one that hashes unpadded values (HAP-python)",
        arguments: [TestSRPServer.Encoding.padded, .unpadded])
    func pairs(encoding: TestSRPServer.Encoding) throws {
        let controller = try ControllerIdentity.generate()
        var accessory = try TestAccessory()
        accessory.srpEncoding = encoding
        let result = try pairSetup(&accessory, controller: controller)
        #expect(result.accessoryPairingID == accessory.pairingID)
        #expect(result.accessoryLTPK == accessory.longTermKey.publicKey)
        #expect(accessory.controllers[controller.pairingID] == controller.publicKey)
        #expect(accessory.requestedMethod == 0)
    }

    @Test("300 pair-setups in a row with an unpadded-hashing accessory all succeed")
    func reRollAgreesEveryTime() async throws {
        let controller = try ControllerIdentity.generate()
        var accessory = try TestAccessory()
        accessory.srpEncoding = .unpadded
        var failures: [String] = []
        var share = FairShare(rounds: 5)
        for run in 0..<300 {
            await share.turn()
            do {
                _ = try pairSetup(&accessory, controller: controller)
            } catch {
                failures.append("run \(run): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("a client that does not re-draw a disagrees with the unpadded accessory when S or K starts with 0")
    func withoutReRollTheServersDisagree() throws {
        // Shows that the unpadded test server really differs: find fixed `a` values that give a leading zero
        // byte in PAD(S) or K; with them the accessory computes another K and refuses the proof.
        var random = SeededGenerator(seed: 7)
        let salt = random.bytes(16)
        var found = 0
        for _ in 0..<2_000 where found < 2 {
            var server = try TestSRPServer(
                password: "031-45-154", salt: salt, privateKey: random.bytes(32), encoding: .unpadded)
            let client = try SRPClient(
                password: "031-45-154", salt: salt, serverPublicKey: server.publicKey,
                privateKey: random.bytes(32))
            guard client.premasterSecret[0] == 0 || client.sessionKey[0] == 0 else { continue }
            found += 1
            #expect(try server.verify(clientPublicKey: client.publicKey, clientProof: client.proof) == nil)
        }
        #expect(found == 2)
    }

    @Test("asks for Method=1 only when the feature flags have bit 0x01")
    func methodFromFeatureFlags() throws {
        let controller = try ControllerIdentity.generate()
        var accessory = try TestAccessory()
        _ = try pairSetup(&accessory, controller: controller, featureFlags: 0x02)
        #expect(accessory.requestedMethod == 0)
        var mfi = try TestAccessory()
        _ = try pairSetup(&mfi, controller: controller, featureFlags: 0x01)
        #expect(mfi.requestedMethod == 1)
    }

    @Test("pairs with an accessory that sends no State items")
    func missingState() throws {
        var accessory = try TestAccessory()
        accessory.omitState = true
        let result = try pairSetup(&accessory, controller: try ControllerIdentity.generate())
        #expect(result.accessoryLTPK == accessory.longTermKey.publicKey)
    }

    @Test("a wrong setup code is reported as such")
    func wrongCode() throws {
        var accessory = try TestAccessory()
        #expect(throws: PairingError.wrongSetupCode) {
            try pairSetup(&accessory, controller: try ControllerIdentity.generate(), code: "031-45-155")
        }
        #expect(PairingError.wrongSetupCode.description.contains("setup code"))
    }

    @Test(
        "the accessory's error codes at M2 map to their errors",
        arguments: [
            (UInt8(1), PairingError.accessoryError(code: 1, step: "pair-setup M2")),
            (2, .authenticationRejected(step: "pair-setup M2")),
            (3, .backoff(retryDelay: nil)),
            (4, .maxPeers),
            (5, .tooManyAttempts),
            (6, .alreadyPaired),
            (7, .busy),
            (9, .accessoryError(code: 9, step: "pair-setup M2")),
        ])
    func errorCodes(code: UInt8, expected: PairingError) throws {
        var accessory = try TestAccessory()
        accessory.errorAtRequest[1] = code
        #expect(throws: expected) { try pairSetup(&accessory, controller: try ControllerIdentity.generate()) }
        #expect(!expected.description.isEmpty && !expected.description.contains("\n"))
    }

    @Test("Backoff carries the RetryDelay seconds; Error=2 at M6 means the accessory refused us")
    func backoffAndM6() throws {
        var setup = PairSetup(setupCode: try SetupCode("03145154"), controller: try ControllerIdentity.generate())
        _ = setup.start()
        let m2: TLV8 = [(.state, [2]), (.error, [3]), (.retryDelay, [0x2C, 0x01])]
        #expect(throws: PairingError.backoff(retryDelay: 300)) { try setup.receive(m2.encoded()) }
        #expect(PairingError.backoff(retryDelay: 300).description.contains("300 s"))

        var accessory = try TestAccessory()
        accessory.errorAtRequest[5] = 2
        #expect(throws: PairingError.authenticationRejected(step: "pair-setup M6")) {
            try pairSetup(&accessory, controller: try ControllerIdentity.generate())
        }
    }

    @Test("a wrong accessory proof, a forged M6 signature and altered M6 data are refused")
    func forgeries() throws {
        let controller = try ControllerIdentity.generate()
        var badProof = try TestAccessory()
        badProof.proofOverride = [UInt8](repeating: 1, count: 64)
        #expect(throws: PairingError.invalidAccessoryProof) { try pairSetup(&badProof, controller: controller) }

        var forged = try TestAccessory()
        forged.signingKeyOverride = try Ed25519PrivateKey()
        #expect(throws: PairingError.invalidAccessorySignature(step: "pair-setup M6")) {
            try pairSetup(&forged, controller: controller)
        }

        var tampered = try TestAccessory()
        tampered.tamperEncryptedData = true
        #expect(throws: PairingError.decryptionFailed(step: "pair-setup M6")) {
            try pairSetup(&tampered, controller: controller)
        }
    }

    @Test(
        "malformed responses: missing items, wrong State, truncated TLV8, bad B",
        arguments: [
            (
                [(.state, [2]), (.publicKey, [UInt8](repeating: 3, count: 384))] as [(TLV8Type, [UInt8])],
                "no Salt item"
            ),
            ([(.state, [2]), (.salt, [UInt8](repeating: 0, count: 16))], "no PublicKey item"),
            ([(.state, [4]), (.salt, [1]), (.publicKey, [1])], "State 4 where 2 was expected"),
            ([(.state, [2]), (.error, [1, 2])], "Error item of 2 bytes"),
        ])
    func malformed(items: [(TLV8Type, [UInt8])], reason: String) throws {
        var setup = PairSetup(setupCode: try SetupCode("031-45-154"), controller: try ControllerIdentity.generate())
        _ = setup.start()
        #expect(throws: PairingError.malformedResponse(step: "pair-setup M2", reason: reason)) {
            try setup.receive(TLV8(items.map { TLV8.Item($0.0, $0.1) }).encoded())
        }
    }

    @Test("truncated TLV8, B = 0 and driving the machine out of order are errors, not crashes")
    func misuse() throws {
        let controller = try ControllerIdentity.generate()
        var setup = PairSetup(setupCode: try SetupCode("031-45-154"), controller: controller)
        #expect(throws: PairingError.outOfOrder("pair-setup receive() before start()")) { try setup.receive([]) }
        _ = setup.start()
        #expect(throws: PairingError.self) { try setup.receive([0x06, 0x05, 0x02]) }
        #expect(throws: PairingError.outOfOrder("pair-setup receive() after it finished")) { try setup.receive([]) }
        _ = setup.start()
        let zeroB: TLV8 = [(.state, [2]), (.publicKey, [0]), (.salt, [UInt8](repeating: 0, count: 16))]
        #expect(throws: PairingError.crypto(.invalidPublicKey("SRP server value B is 0 mod N"))) {
            try setup.receive(zeroB.encoded())
        }
    }
}
