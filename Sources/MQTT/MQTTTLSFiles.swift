/// The PEM files of an `mqtts://` connection (`MQTTConfiguration.tls`).
public struct MQTTTLSFiles: Sendable, Hashable {
    /// PEM file of the certificate authorities that sign the broker's certificate. Without it an
    /// `mqtts://` client trusts the system's CA store: OpenSSL's default file and directory, or those
    /// that `SSL_CERT_FILE` and `SSL_CERT_DIR` name; `MQTTClient.init` throws when there is none. There is deliberately no "insecure" mode: the
    /// broker's certificate and host name are always verified.
    public var caFile: String?
    /// PEM client certificate, for brokers that require one; needs `keyFile`.
    public var certFile: String?
    /// PEM private key of `certFile`, unencrypted.
    public var keyFile: String?

    /// No files: the system's CA store, no client certificate.
    public init(caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
    }
}
