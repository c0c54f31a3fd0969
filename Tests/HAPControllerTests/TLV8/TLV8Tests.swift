import HAPController
import Testing

@Suite("TLV8")
struct TLV8Tests {
    @Test("a 384-byte value is written as 255 + 129 byte fragments and read back whole")
    func fragments() throws {
        let value = (0..<384).map { UInt8($0 & 0xFF) }
        let message: TLV8 = [(.state, [3]), (.publicKey, value), (.proof, [UInt8](repeating: 7, count: 64))]
        let bytes = message.encoded()
        #expect(bytes.count == 3 + (2 + 255) + (2 + 129) + 66)
        #expect(Array(bytes[0..<5]) == [0x06, 0x01, 0x03, 0x03, 0xFF])
        #expect(Array(bytes[3 + 257..<3 + 259]) == [0x03, 0x81])
        let decoded = try TLV8(decoding: bytes)
        #expect(decoded == message)
        #expect(decoded[.publicKey] == value)
        #expect(decoded.integer(.state) == 3)
    }

    @Test("values of exactly 255 and 510 bytes split on the boundary without an empty tail")
    func boundaries() throws {
        for count in [254, 255, 256, 510, 511] {
            let message: TLV8 = [(.encryptedData, [UInt8](repeating: 0xAB, count: count))]
            let bytes = message.encoded()
            #expect(bytes.count == count + 2 * ((count + 254) / 255), "\(count) bytes")
            #expect(try TLV8(decoding: bytes) == message)
        }
    }

    @Test("an empty value is written as type 00 and read back")
    func emptyValues() throws {
        let message: TLV8 = [(.identifier, []), (.state, [2])]
        #expect(message.encoded() == [0x01, 0x00, 0x06, 0x01, 0x02])
        #expect(try TLV8(decoding: message.encoded()) == message)
        #expect(try TLV8(decoding: []).items.isEmpty)
    }

    @Test("separators keep list entries apart and are never merged, also when several follow each other")
    func separators() throws {
        let bytes: [UInt8] = [0x01, 0x01, 0x41, 0xFF, 0x00, 0x01, 0x01, 0x42, 0xFF, 0x00, 0xFF, 0x00, 0x01, 0x01, 0x43]
        let decoded = try TLV8(decoding: bytes)
        #expect(
            decoded.items.map(\.type) == [.identifier, .separator, .identifier, .separator, .separator, .identifier])
        #expect(decoded.values(of: .identifier) == [[0x41], [0x42], [0x43]])
        #expect(decoded.encoded() == bytes)
        #expect(decoded.records(startingWith: .identifier).map { $0.string(.identifier) } == ["A", "B", "C"])
    }

    @Test("consecutive items of the same type are joined as fragments")
    func joinsFragments() throws {
        let decoded = try TLV8(decoding: [0x01, 0x02, 0x61, 0x62, 0x01, 0x01, 0x63, 0x06, 0x01, 0x04])
        #expect(decoded.items.count == 2)
        #expect(decoded.string(.identifier) == "abc")
    }

    @Test("unknown types are kept and named by their hex value")
    func unknownTypes() throws {
        let bytes: [UInt8] = [0x2A, 0x02, 0x01, 0x02, 0x06, 0x01, 0x02]
        let decoded = try TLV8(decoding: bytes)
        #expect(decoded[TLV8Type(rawValue: 0x2A)] == [1, 2])
        #expect(decoded.encoded() == bytes)
        #expect(decoded.description == "TLV8[0x2a: 2 B, State: 1 B]")
    }

    @Test(
        "truncated input is an error that says where",
        arguments: [
            ([0x06] as [UInt8], TLV8Error.truncated(offset: 0, needed: 2, available: 1)),
            ([0x06, 0x02, 0x01], TLV8Error.truncated(offset: 0, needed: 4, available: 3)),
            ([0x06, 0x01, 0x01, 0x03], TLV8Error.truncated(offset: 3, needed: 2, available: 1)),
            ([0x06, 0x01, 0x01, 0x03, 0x05, 0, 0, 0], TLV8Error.truncated(offset: 3, needed: 7, available: 5)),
        ])
    func truncated(bytes: [UInt8], error: TLV8Error) {
        #expect(throws: error) { try TLV8(decoding: bytes) }
    }

    @Test("integers are little-endian, 1 to 8 bytes; strings must be UTF-8")
    func accessors() {
        let message: TLV8 = [
            (.retryDelay, [0x2C, 0x01]), (.error, []), (.identifier, [0xFF, 0xFE]),
            (.salt, [UInt8](repeating: 1, count: 9)),
        ]
        #expect(message.integer(.retryDelay) == 300)
        #expect(message.integer(.error) == nil)
        #expect(message.integer(.salt) == nil)
        #expect(message.integer(.state) == nil)
        #expect(message.string(.identifier) == nil)
        var built = TLV8()
        built.append(.identifier, string: "AA:BB")
        built.append(.permissions, byte: 1)
        #expect(built.string(.identifier) == "AA:BB" && built.integer(.permissions) == 1)
    }

    @Test("records split on a repeated leading type when the server sends no separators")
    func recordsWithoutSeparators() throws {
        let message: TLV8 = [
            (.state, [2]), (.identifier, [0x61]), (.publicKey, [1]), (.permissions, [1]),
            (.identifier, [0x62]), (.publicKey, [2]), (.permissions, [0]),
        ]
        let records = message.records(startingWith: .identifier)
        #expect(records.count == 2)
        #expect(records[0].string(.identifier) == "a" && records[0].integer(.state) == 2)
        #expect(records[1].string(.identifier) == "b" && records[1][.publicKey] == [2])
    }

    @Test("error codes 1 to 7 have their HAP names")
    func errorCodes() {
        #expect(
            (1...7).compactMap { PairingTLVError(rawValue: $0)?.description }
                == ["Unknown", "Authentication", "Backoff", "MaxPeers", "MaxTries", "Unavailable", "Busy"])
        #expect(PairingTLVError(rawValue: 8) == nil)
    }
}
