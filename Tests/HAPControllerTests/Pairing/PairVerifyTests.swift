import HAPController
import Testing

@Suite("Pair-verify against a test accessory")
struct PairVerifyTests {
    /// A controller paired with a fresh test accessory through the real pair-setup.
    static func paired() throws -> (ControllerIdentity, TestAccessory, Pairing) {
        let controller = try ControllerIdentity.generate()
        var accessory = try TestAccessory()
        let result = try pairSetup(&accessory, controller: controller)
        return (
            controller, accessory, Pairing(controller: controller, accessory: result, host: "127.0.0.1", port: 51826)
        )
    }

    @Test("verifies and both sides derive matching session keys that carry traffic both ways")
    func verifies() throws {
        var (controller, accessory, pairing) = try Self.paired()
        let keys = try pairVerify(&accessory, controller: controller, pairing: pairing)
        var ours = HAPSessionCipher(keys: keys)
        var theirs = try accessory.sessionCipher()
        let request = Array("GET /accessories HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        #expect(try theirs.open(ours.seal(request)) == request)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(try ours.open(theirs.seal(response)) == response)
        #expect(keys.controllerToAccessory != keys.accessoryToController)
        #expect("\(keys)" == "SessionKeys(redacted)")
    }

    @Test("each verify uses a new ephemeral key, so session keys differ")
    func freshKeys() throws {
        var (controller, accessory, pairing) = try Self.paired()
        let first = try pairVerify(&accessory, controller: controller, pairing: pairing)
        let second = try pairVerify(&accessory, controller: controller, pairing: pairing)
        #expect(first != second)
    }

    @Test("the accessory id is compared without regard to case")
    func caseInsensitiveID() throws {
        var (controller, accessory, pairing) = try Self.paired()
        accessory.announcedIdentifier = accessory.pairingID.lowercased()
        // The signature covers the announced bytes, so this is a well-formed M2 from the same accessory.
        _ = try pairVerify(&accessory, controller: controller, pairing: pairing)
    }

    @Test("another accessory answering at the paired address is reported as the wrong accessory")
    func wrongAccessory() throws {
        var (controller, accessory, pairing) = try Self.paired()
        accessory.announcedIdentifier = "11:22:33:44:55:66"
        #expect(throws: PairingError.wrongAccessory(expected: pairing.accessoryPairingID, found: "11:22:33:44:55:66")) {
            try pairVerify(&accessory, controller: controller, pairing: pairing)
        }
    }

    @Test("a signature from another long-term key is refused")
    func forgedSignature() throws {
        var (controller, accessory, pairing) = try Self.paired()
        accessory.signingKeyOverride = try Ed25519PrivateKey()
        #expect(throws: PairingError.invalidAccessorySignature(step: "pair-verify M2")) {
            try pairVerify(&accessory, controller: controller, pairing: pairing)
        }
    }

    @Test("altered M2 encrypted data does not decrypt")
    func tampered() throws {
        var (controller, accessory, pairing) = try Self.paired()
        accessory.tamperEncryptedData = true
        #expect(throws: PairingError.decryptionFailed(step: "pair-verify M2")) {
            try pairVerify(&accessory, controller: controller, pairing: pairing)
        }
    }

    @Test("Error=2 at M4 means the pairing was removed on the accessory")
    func removedPairing() throws {
        var (controller, accessory, pairing) = try Self.paired()
        accessory.unpair(controller.pairingID)
        #expect(throws: PairingError.authenticationFailed) {
            try pairVerify(&accessory, controller: controller, pairing: pairing)
        }
        #expect(PairingError.authenticationFailed.description.contains("removed"))
    }

    @Test("a controller the accessory never paired with is refused the same way")
    func strangerController() throws {
        var (_, accessory, pairing) = try Self.paired()
        let stranger = try ControllerIdentity.generate()
        #expect(throws: PairingError.authenticationFailed) {
            try pairVerify(&accessory, controller: stranger, pairing: pairing)
        }
    }

    @Test(
        "errors at M2 map like pair-setup's; missing items and misuse are errors",
        arguments: [
            (UInt8(7), PairingError.busy), (6, .alreadyPaired), (1, .accessoryError(code: 1, step: "pair-verify M2")),
        ])
    func m2Errors(code: UInt8, expected: PairingError) throws {
        var (controller, accessory, pairing) = try Self.paired()
        accessory.errorAtRequest[1] = code
        #expect(throws: expected) { try pairVerify(&accessory, controller: controller, pairing: pairing) }
    }

    @Test("malformed M2 and out-of-order use are errors, not crashes")
    func malformed() throws {
        let (controller, _, pairing) = try Self.paired()
        var verify = PairVerify(controller: controller, pairing: pairing)
        #expect(throws: PairingError.outOfOrder("pair-verify receive() before start()")) { try verify.receive([]) }
        _ = try verify.start()
        let shortKey: TLV8 = [
            (.state, [2]), (.publicKey, [1, 2, 3]), (.encryptedData, [UInt8](repeating: 0, count: 40)),
        ]
        #expect(throws: PairingError.malformedResponse(step: "pair-verify M2", reason: "PublicKey is 3 bytes, not 32"))
        {
            try verify.receive(shortKey.encoded())
        }
        _ = try verify.start()
        let noData: TLV8 = [(.state, [2]), (.publicKey, try X25519PrivateKey().publicKey)]
        #expect(throws: PairingError.malformedResponse(step: "pair-verify M2", reason: "no EncryptedData item")) {
            try verify.receive(noData.encoded())
        }
        _ = try verify.start()
        let smallOrder: TLV8 = [(.state, [2]), (.publicKey, [UInt8](repeating: 0, count: 32)), (.encryptedData, [1])]
        #expect(throws: PairingError.self) { try verify.receive(smallOrder.encoded()) }
    }
}
