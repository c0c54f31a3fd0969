import HomeStore
import Testing

/// A controller's pairing id and Ed25519 public key as a user writes them (`ControllerPairing`), read
/// before anything is sent to an accessory. Keys are RFC 8032 §7.1's test 1 public key.
@Suite("Controller pairings: the key and the id a user gives")
struct ControllerPairingTests {
    static let hex = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    static let bytes: [UInt8] = [
        0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a,
        0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a,
    ]
    static let expected =
        "the controller's public key must be 32 bytes (Ed25519), written as 64 hex digits or as base64; "

    @Test("a key is read from 64 hex digits in either case, or from base64 with or without its padding")
    func keyForms() throws {
        for text in [
            Self.hex, Self.hex.uppercased(), " \(Self.hex) ", "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
            "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo",
        ] {
            #expect(try ControllerPairing.publicKey(text) == Self.bytes, "\(text)")
        }
        let pairing = try ControllerPairing(parsingID: "C0FFEE-1", publicKey: Self.hex, admin: true)
        #expect(pairing.publicKeyHex == Self.hex && pairing.admin && pairing.id == "C0FFEE-1")
    }

    @Test("a key of another length, or in neither form, and an id that is empty, too long or has spaces are refused")
    func refusals() {
        let cases: [(String, String)] = [
            (String(Self.hex.dropLast(2)), Self.expected + "this one is 31 bytes"),
            (Self.hex + "00", Self.expected + "this one is 33 bytes"),
            ("AAAA", Self.expected + "this one is 2 bytes"),
            ("AAAA=", Self.expected + "this one is 3 bytes"),
            ("", Self.expected + "this one is 0 bytes"),
            (
                "zz" + String(Self.hex.dropFirst(2)),
                Self.expected + "this one has 64 characters that are not all hex digits"
            ),
            ("not a key!", Self.expected + "this one is neither"),
        ]
        for (text, error) in cases {
            #expect(throws: ManagementError.invalidRequest(error), "\(text)") {
                try ControllerPairing.publicKey(text)
            }
        }
        let idError = ManagementError.invalidRequest(
            "the controller's pairing id must be 1 to 64 bytes of text without spaces or control characters")
        for id in ["", "a b", "a\nb", String(repeating: "x", count: 65)] {
            #expect(throws: idError) { try ControllerPairing(parsingID: id, publicKey: Self.hex, admin: false) }
        }
    }
}
