import HAPController
import Testing

@Suite("/pairings bodies")
struct PairingManagementTests {
    @Test("add, remove and list requests carry the HAP items in order")
    func requests() throws {
        let key = [UInt8](repeating: 0xAB, count: 32)
        let add = try TLV8(decoding: PairingManagement.addRequest(pairingID: "C1", publicKey: key, admin: true))
        #expect(add.items.map(\.type) == [.state, .method, .identifier, .publicKey, .permissions])
        #expect(add.integer(.state) == 1 && add.integer(.method) == 3 && add.string(.identifier) == "C1")
        #expect(add[.publicKey] == key && add.integer(.permissions) == 1)
        let user = try TLV8(decoding: PairingManagement.addRequest(pairingID: "C1", publicKey: key, admin: false))
        #expect(user.integer(.permissions) == 0)
        #expect(
            PairingManagement.removeRequest(pairingID: "C1") == [
                0x06, 0x01, 0x01, 0x00, 0x01, 0x04, 0x01, 0x02, 0x43, 0x31,
            ])
        #expect(PairingManagement.listRequest() == [0x06, 0x01, 0x01, 0x00, 0x01, 0x05])
    }

    static let first = [UInt8](repeating: 1, count: 32), second = [UInt8](repeating: 2, count: 32)

    @Test("a list answer parses with separators and without", arguments: [true, false])
    func list(separators: Bool) throws {
        var message: TLV8 = [
            (.state, [2]), (.identifier, Array("A-1".utf8)), (.publicKey, Self.first), (.permissions, [1]),
        ]
        if separators { message.append(.separator, []) }
        message.append(.identifier, string: "B-2")
        message.append(.publicKey, Self.second)
        message.append(.permissions, byte: 0)
        let records = try PairingManagement.parseList(message.encoded())
        #expect(
            records == [
                PairingRecord(pairingID: "A-1", publicKey: Self.first, permissions: 1),
                PairingRecord(pairingID: "B-2", publicKey: Self.second, permissions: 0),
            ])
        #expect(records.map(\.isAdmin) == [true, false])
    }

    @Test("Error=2 means this controller is not an admin; other codes map as in pairing")
    func errors() {
        let notAdmin: TLV8 = [(.state, [2]), (.error, [2])]
        #expect(throws: PairingError.notAdmin) { try PairingManagement.checkResponse(notAdmin.encoded()) }
        #expect(throws: PairingError.notAdmin) { try PairingManagement.parseList(notAdmin.encoded()) }
        let full: TLV8 = [(.state, [2]), (.error, [4])]
        #expect(throws: PairingError.maxPeers) { try PairingManagement.checkResponse(full.encoded()) }
        let ok: TLV8 = [(.state, [2])]
        #expect(throws: Never.self) { try PairingManagement.checkResponse(ok.encoded()) }
    }

    @Test("a record without a public key is malformed; an empty list is empty")
    func malformed() throws {
        let noKey: TLV8 = [(.state, [2]), (.identifier, [0x41]), (.permissions, [0])]
        #expect(throws: PairingError.malformedResponse(step: "list pairings M2", reason: "no PublicKey item")) {
            try PairingManagement.parseList(noKey.encoded())
        }
        let empty: TLV8 = [(.state, [2])]
        #expect(try PairingManagement.parseList(empty.encoded()).isEmpty)
    }
}
