public import Foundation

/// A server certificate and its key, signed by a `TestCertificateAuthority`, as PEM files.
public struct TestServerCertificate: Sendable {
    /// The CA that signed it: what a client must trust.
    public var caFile: String
    /// The server certificate (PEM) with 127.0.0.1 and localhost (or the hosts asked for) as names.
    public var certFile: String
    /// Its unencrypted private key (PEM).
    public var keyFile: String
}

/// A throw-away certificate authority made with the `openssl` command line, for TLS tests on loopback.
/// Keys are P-256 (fast to make); certificates are valid for two days.
public struct TestCertificateAuthority: Sendable {
    /// The CA certificate (PEM): the `caFile` a client trusts.
    public let caFile: String
    let keyFile: String
    let directory: URL

    /// Makes a CA called `name` in `directory`.
    /// - Throws: `TestSupportError.toolMissing` without openssl, `.commandFailed` when it fails.
    public init(name: String, in directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        caFile = directory.appendingPathComponent("\(name).pem").path
        keyFile = directory.appendingPathComponent("\(name).key").path
        try await ExternalTool.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", keyFile, "-out", caFile, "-days", "2", "-subj", "/CN=\(name)",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
    }

    /// Issues a server certificate for `hosts` (IP addresses and DNS names, in the subject alternative
    /// name), by default 127.0.0.1 and localhost.
    /// - Throws: as `init`.
    public func issueServerCertificate(name: String = "server", hosts: [String] = ["127.0.0.1", "localhost"])
        async throws -> TestServerCertificate
    {
        let certFile = directory.appendingPathComponent("\(name).pem").path
        let serverKey = directory.appendingPathComponent("\(name).key").path
        let request = directory.appendingPathComponent("\(name).csr").path
        let extensions = directory.appendingPathComponent("\(name).ext")
        let names = hosts.map { $0.first?.isNumber == true || $0.contains(":") ? "IP:\($0)" : "DNS:\($0)" }
        try TestFile.write(
            """
            subjectAltName=\(names.joined(separator: ","))
            basicConstraints=CA:FALSE
            extendedKeyUsage=serverAuth
            """, to: extensions)
        try await ExternalTool.run(
            "openssl",
            [
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", serverKey, "-out", request, "-subj", "/CN=\(hosts.first ?? name)",
            ])
        try await ExternalTool.run(
            "openssl",
            [
                "x509", "-req", "-in", request, "-CA", caFile, "-CAkey", keyFile, "-set_serial",
                String(UInt32.random(in: 1...UInt32.max)),
                "-out", certFile, "-days", "2", "-extfile", extensions.path,
            ])
        return TestServerCertificate(caFile: caFile, certFile: certFile, keyFile: serverKey)
    }
}
