import Testing

@testable import HAPController

@Suite("SRP-6a client (HAP parameters)")
struct SRPClientTests {
    typealias V = HAPSRPVectors

    @Test("with fast-srp's HAP vectors the client computes k, x, A, u, S, K, M1 and M2")
    func knownAnswers() throws {
        let client = try SRPClient(
            username: "alice", password: "password123", salt: V.salt, serverPublicKey: V.B,
            privateKey: V.a)
        #expect(hex(client.multiplier) == V.k)
        #expect(hex(client.passwordHash) == V.x)
        #expect(client.publicKey == V.A)
        #expect(client.scramblingParameter == V.u)
        #expect(client.premasterSecret == V.S)
        #expect(client.sessionKey == V.K)
        #expect(hex(client.proof) == V.m1)
        #expect(hex(client.expectedServerProof) == V.m2)
        #expect(client.isValidServerProof(hex(V.m2)))
        #expect(!client.isValidServerProof(Array(hex(V.m2).reversed())))
        #expect(!String(describing: client).contains(hex(V.K)))
    }

    @Test("the test's SRP server reproduces B from b and accepts the vector proof")
    func testServerAgrees() throws {
        var server = try TestSRPServer(
            username: "alice", password: "password123", salt: V.salt, privateKey: V.b,
            encoding: .padded)
        #expect(server.publicKey == V.B)
        #expect(try server.verify(clientPublicKey: V.A, clientProof: hex(V.m1)) == hex(V.m2))
        #expect(server.sessionKey == V.K)
    }

    @Test("the client refuses B = 0 (empty or padded), B = N and a B longer than 384 bytes")
    func rejectsBadServerValues() throws {
        let zero = [UInt8](repeating: 0, count: 384)
        #expect(throws: CryptoError.self) { try SRPClient(password: "123-45-678", salt: V.salt, serverPublicKey: zero) }
        #expect(throws: CryptoError.self) { try SRPClient(password: "123-45-678", salt: V.salt, serverPublicKey: []) }
        #expect(throws: CryptoError.self) {
            try SRPClient(password: "123-45-678", salt: V.salt, serverPublicKey: SRPGroup.modulus)
        }
        #expect(throws: CryptoError.self) {
            try SRPClient(password: "123-45-678", salt: V.salt, serverPublicKey: [1] + V.B)
        }
    }

    @Test("random runs keep A, PAD(S), K and M1 free of a leading zero byte and agree with a padding server")
    func randomRuns() throws {
        for _ in 0..<200 {
            let salt = try SecureRandom.bytes(16)
            var server = try TestSRPServer(
                password: "031-45-154", salt: salt, privateKey: SecureRandom.bytes(32),
                encoding: .padded)
            let client = try SRPClient(password: "031-45-154", salt: salt, serverPublicKey: server.publicKey)
            #expect(client.publicKey.count == 384 && client.publicKey[0] != 0)
            #expect(client.premasterSecret[0] != 0 && client.sessionKey[0] != 0 && client.proof[0] != 0)
            let m2 = try #require(try server.verify(clientPublicKey: client.publicKey, clientProof: client.proof))
            #expect(client.isValidServerProof(m2))
            #expect(server.sessionKey == client.sessionKey)
        }
    }

    @Test("an all-zero salt works (LIFX Beam sends one)")
    func zeroSalt() throws {
        let salt = [UInt8](repeating: 0, count: 16)
        var server = try TestSRPServer(
            password: "111-22-333", salt: salt, privateKey: SecureRandom.bytes(32),
            encoding: .unpadded)
        let client = try SRPClient(password: "111-22-333", salt: salt, serverPublicKey: server.publicKey)
        let m2 = try #require(try server.verify(clientPublicKey: client.publicKey, clientProof: client.proof))
        #expect(client.isValidServerProof(m2))
    }
}
