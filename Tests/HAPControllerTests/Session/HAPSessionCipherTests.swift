import HAP2MQTTTesting
import Testing

@testable import HAPController

@Suite("Encrypted session framing")
struct HAPSessionCipherTests {
    /// A controller and an accessory cipher with matching keys.
    static func pair() throws -> (controller: HAPSessionCipher, accessory: HAPSessionCipher) {
        let keys = try SessionKeys(sharedSecret: SecureRandom.bytes(32))
        return (
            HAPSessionCipher(keys: keys),
            HAPSessionCipher(encryptionKey: keys.accessoryToController, decryptionKey: keys.controllerToAccessory)
        )
    }

    // The expected keys are HKDF-SHA512 outputs computed with Python's `cryptography` (see PrimitiveVectorTests).
    @Test("session keys: Control-Write is controller→accessory, Control-Read is accessory→controller")
    func keyDirections() throws {
        let keys = try SessionKeys(sharedSecret: Array(0...31))
        #expect(hex(keys.controllerToAccessory) == "c3ca130c7033dbe5e7ff7f91d117ead869bac476994c7a48ca170c111136ed96")
        #expect(hex(keys.accessoryToController) == "c09403ef8aa6c5045cbd8cf9bf3e665b2caed623af2be0e87c8f80f519914d3d")
        #expect(throws: CryptoError.self) {
            try SessionKeys(controllerToAccessory: [1], accessoryToController: keys.accessoryToController)
        }
    }

    @Test(
        "frames hold at most 1024 bytes and round-trip across the boundary",
        arguments: [1, 1023, 1024, 1025, 2048, 5000])
    func boundaries(size: Int) throws {
        var (controller, accessory) = try Self.pair()
        let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let wire = try controller.seal(plaintext)
        let frames = (size + 1023) / 1024
        #expect(wire.count == size + 18 * frames)
        #expect(Array(wire[0..<2]) == [UInt8(min(size, 1024) & 0xFF), UInt8(min(size, 1024) >> 8)])
        #expect(try accessory.open(wire) == plaintext)
        #expect(accessory.bufferedByteCount == 0)
    }

    @Test("the wire format is length ‖ ciphertext ‖ tag with the length as AAD and nonce 0000 ‖ counter LE")
    func wireFormat() throws {
        let keys = try SessionKeys(sharedSecret: SecureRandom.bytes(32))
        var controller = HAPSessionCipher(keys: keys)
        let wire = try controller.seal(Array("a".utf8)) + controller.seal(Array("bc".utf8))
        #expect(Array(wire[0..<2]) == [1, 0])
        let first = try ChaCha20Poly1305.open(
            Array(wire[2..<19]), key: keys.controllerToAccessory,
            nonce: [UInt8](repeating: 0, count: 12), aad: [1, 0])
        #expect(first == Array("a".utf8))
        let second = try ChaCha20Poly1305.open(
            Array(wire[21...]), key: keys.controllerToAccessory,
            nonce: [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], aad: [2, 0])
        #expect(second == Array("bc".utf8))
    }

    @Test("input fed one byte at a time gives the same plaintext")
    func byteByByte() throws {
        var (controller, accessory) = try Self.pair()
        let plaintext = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        let wire = try controller.seal(plaintext)
        var received: [UInt8] = []
        for byte in wire { received += try accessory.open([byte]) }
        #expect(received == plaintext)
    }

    @Test("random splits of many messages in both directions keep order and counters", arguments: [31, 32, 33])
    func randomSplits(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var (controller, accessory) = try Self.pair()
        for direction in 0..<2 {
            var messages: [UInt8] = []
            var wire: [UInt8] = []
            for _ in 0..<40 {
                let message = random.bytes(Int.random(in: 0...2500, using: &random))
                messages += message
                wire += direction == 0 ? try controller.seal(message) : try accessory.seal(message)
            }
            var received: [UInt8] = []
            var offset = 0
            while offset < wire.count {
                let end = min(wire.count, offset + Int.random(in: 1...3000, using: &random))
                let chunk = Array(wire[offset..<end])
                received += direction == 0 ? try accessory.open(chunk) : try controller.open(chunk)
                offset = end
            }
            #expect(received == messages, "seed \(seed) direction \(direction)")
        }
    }

    @Test("a tampered byte fails authentication and the cipher then refuses to seal or open")
    func tampering() throws {
        var (controller, accessory) = try Self.pair()
        var wire = try controller.seal([UInt8](repeating: 0x41, count: 1500))
        wire[1024 + 18 + 5] ^= 0x01
        #expect(throws: SessionCipherError.authenticationFailed(frame: 1)) { try accessory.open(wire) }
        #expect(accessory.isBroken)
        #expect(throws: SessionCipherError.broken) { try accessory.open([]) }
        #expect(throws: SessionCipherError.broken) { try accessory.seal([1]) }
    }

    @Test("frames replayed, reordered or decrypted with the other direction's key fail")
    func wrongOrderOrKey() throws {
        var (controller, accessory) = try Self.pair()
        let a = try controller.seal([1])
        let b = try controller.seal([2])
        var reordered = accessory
        #expect(throws: SessionCipherError.authenticationFailed(frame: 0)) { try reordered.open(b + a) }
        #expect(try accessory.open(a) == [1])
        #expect(throws: SessionCipherError.authenticationFailed(frame: 1)) { try accessory.open(a) }
        var sameSide = controller
        #expect(throws: SessionCipherError.authenticationFailed(frame: 0)) {
            try sameSide.open(try controller.seal([3]))
        }
    }

    @Test("an empty plaintext gives no frame; a partial frame stays buffered")
    func emptyAndPartial() throws {
        var (controller, accessory) = try Self.pair()
        #expect(try controller.seal([]).isEmpty)
        let wire = try controller.seal([9, 9, 9])
        #expect(try accessory.open(Array(wire.prefix(10))).isEmpty)
        #expect(accessory.bufferedByteCount == 10)
        #expect(try accessory.open(Array(wire.dropFirst(10))) == [9, 9, 9])
    }
}
