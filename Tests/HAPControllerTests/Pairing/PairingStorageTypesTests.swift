import Foundation
import HAPController
import JSON
import Testing

@Suite("Controller identity and pairing records")
struct PairingStorageTypesTests {
    @Test("a controller identity round-trips through JSON and signs the same afterwards")
    func identityCodable() throws {
        let identity = try ControllerIdentity.generate()
        #expect(UUID(uuidString: identity.pairingID) != nil)
        let text = identity.json.description
        let decoded = try ControllerIdentity(json: JSONValue(parsing: text))
        #expect(decoded == identity)
        // The restored identity still pairs: its key is whole.
        var accessory = try TestAccessory()
        _ = try pairSetup(&accessory, controller: decoded)
        #expect(accessory.controllers[identity.pairingID] == identity.publicKey)
    }

    @Test("an identity imported from a seed has the RFC 8032 public key")
    func identityFromSeed() throws {
        let identity = try ControllerIdentity(
            pairingID: "X", seed: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(hex(identity.publicKey) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        #expect(throws: CryptoError.self) { try ControllerIdentity(pairingID: "X", seed: [1, 2, 3]) }
    }

    @Test("an identity whose public key does not fit its seed, or is not base64, does not decode")
    func identityCorrupt() throws {
        let identity = try ControllerIdentity.generate()
        var object = try #require(identity.json.objectValue)
        object.append("publicKey", .string(Base64Text.of(try Ed25519PrivateKey().publicKey)))
        #expect(throws: JSONFieldError.invalid("publicKey", reason: "the public key does not belong to the seed")) {
            try ControllerIdentity(json: .object(object))
        }
        object.append("seed", "not base64!")
        #expect(throws: JSONFieldError.invalid("seed", reason: "not base64")) {
            try ControllerIdentity(json: .object(object))
        }
        #expect(throws: JSONFieldError.missing("pairingID")) {
            try ControllerIdentity(json: ["seed": "AAAA", "publicKey": "AAAA"])
        }
    }

    @Test("descriptions of secrets show no secret bytes")
    func redaction() throws {
        let identity = try ControllerIdentity.generate()
        // Read with Foundation, independent of the code under test.
        let stored = try JSONSerialization.jsonObject(with: Data(identity.json.encoded())) as? [String: String]
        let seed = try #require(stored?["seed"])
        var dumped = ""
        dump(identity, to: &dumped)
        for text in ["\(identity)", String(reflecting: identity), dumped] {
            #expect(!text.contains(seed))
            #expect(!text.contains(hex(Array(Base64Text.bytes(seed).prefix(6)))))
        }
    }

    @Test("a pairing round-trips through JSON, keeps an optional name, and needs a 32-byte LTPK and a port")
    func pairingJSON() throws {
        let pairing = Pairing(
            accessoryPairingID: "AA:BB:CC:DD:EE:FF", accessoryLTPK: [UInt8](repeating: 7, count: 32),
            controllerPairingID: "C0FFEE", host: "192.168.1.5", port: 51826, name: "Kitchen Lamp")
        #expect(try Pairing(json: JSONValue(parsing: pairing.json.description)) == pairing)
        var unnamed = pairing
        unnamed.name = nil
        #expect(unnamed.json["name"] == nil)
        #expect(try Pairing(json: JSONValue(parsing: unnamed.json.description)) == unnamed)
        #expect("\(pairing)" == "Pairing(AA:BB:CC:DD:EE:FF \"Kitchen Lamp\" at 192.168.1.5:51826)")
        let short = #"{"accessoryPairingID":"A","accessoryLTPK":"AAEC","controllerPairingID":"C","host":"h","port":1}"#
        #expect(throws: JSONFieldError.invalid("accessoryLTPK", reason: "3 bytes where 32 were expected")) {
            try Pairing(json: JSONValue(parsing: short))
        }
        let farPort = short.replacingOccurrences(of: #""AAEC""#, with: #""\#(Base64Text.of(pairing.accessoryLTPK))""#)
            .replacingOccurrences(of: #""port":1"#, with: #""port":70000"#)
        #expect(throws: JSONFieldError.outOfRange("port")) { try Pairing(json: JSONValue(parsing: farPort)) }
        let textPort = farPort.replacingOccurrences(of: "70000", with: #""80""#)
        #expect(throws: JSONFieldError.wrongType("port")) { try Pairing(json: JSONValue(parsing: textPort)) }
    }
}

/// Base64 through Foundation, independent of the code under test.
enum Base64Text {
    static func of(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
    static func bytes(_ text: String) -> [UInt8] { Data(base64Encoded: text).map { [UInt8]($0) } ?? [] }
}
