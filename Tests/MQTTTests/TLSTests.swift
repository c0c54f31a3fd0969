import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("TLS with certificates made by openssl for the test")
struct TLSTests {
    @Test("mqtts:// with the broker's CA connects, by IP address and by host name, and carries messages")
    func trustedCA() async throws {
        try await withTemporaryDirectory { directory in
            let authority = try await TestCertificateAuthority(name: "test-ca", in: directory)
            let broker = try await MosquittoBroker(options: .init(tls: try await authority.issueServerCertificate()))
            let tlsURL = try #require(broker.tlsURL)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["tls/#"])

            let secure = try await MQTTTestClient.connect(to: tlsURL, subscribe: []) {
                $0.tls.caFile = authority.caFile
            }
            try await secure.publish("tls/ip", "via 127.0.0.1")
            let byName = try await MQTTTestClient.connect(
                to: "mqtts://localhost:\(try #require(broker.tlsPort))", subscribe: []
            ) {
                $0.tls.caFile = authority.caFile
            }
            try await byName.publish("tls/name", "via localhost")

            #expect(try await observer.waitFor(topic: "tls/ip").payloadString == "via 127.0.0.1")
            #expect(try await observer.waitFor(topic: "tls/name").payloadString == "via localhost")
            for client in [observer, secure, byName] { await client.disconnect() }
        }
    }

    @Test("a CA that did not sign the broker's certificate fails with OpenSSL's reason")
    func wrongCA() async throws {
        try await withTemporaryDirectory { directory in
            let authority = try await TestCertificateAuthority(name: "real-ca", in: directory)
            let stranger = try await TestCertificateAuthority(
                name: "other-ca", in: directory.appendingPathComponent("other"))
            let reason = try await tlsFailure(
                certificate: try await authority.issueServerCertificate(), trusting: stranger)
            #expect(reason.contains("certificate verify failed"))
        }
    }

    @Test("a certificate for another host name is refused: the host name is always checked")
    func wrongHostName() async throws {
        try await withTemporaryDirectory { directory in
            let authority = try await TestCertificateAuthority(name: "test-ca", in: directory)
            let certificate = try await authority.issueServerCertificate(hosts: ["broker.example"])
            let reason = try await tlsFailure(certificate: certificate, trusting: authority)
            #expect(reason.contains("host name verification failed"))
        }
    }

    /// Connects to a TLS broker serving `certificate` while trusting `authority`; returns the TLS error's text.
    private func tlsFailure(certificate: TestServerCertificate, trusting authority: TestCertificateAuthority)
        async throws -> String
    {
        let broker = try await MosquittoBroker(options: .init(tls: certificate))
        var configuration = MQTTConfiguration(url: try #require(broker.tlsURL), clientID: "distrustful")
        configuration.tls.caFile = authority.caFile
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))

        let error = await #expect(throws: MQTTError.self) { try await client.connect() }
        await client.disconnect()

        guard case .tls(let reason) = error else {
            Issue.record("expected a TLS error, got \(String(describing: error))")
            return ""
        }
        return reason
    }

    private func withTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }
}
