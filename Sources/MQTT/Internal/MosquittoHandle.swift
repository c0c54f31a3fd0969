import CMosquitto
import COpenSSL
import Foundation

/// `mosquitto_lib_init` must run once per process before the first `mosquitto_new`; a global `let` is
/// initialised exactly once, on first use, from any thread.
private let mosquittoLibraryInitialised: Int32 = {
    // Over TLS, OpenSSL writes with a plain send(), which raises SIGPIPE when the broker has gone away;
    // its default action would end the whole gateway instead of causing a reconnect.
    _ = signal(SIGPIPE, SIG_IGN)
    return mosquitto_lib_init()
}()

/// Owns one libmosquitto client (`struct mosquitto *`), configured from an `MQTTConfiguration`.
///
/// `@unchecked Sendable` because the pointer is set once and never changes, libmosquitto (built with
/// threads and switched to threaded mode by `mosquitto_threaded_set`) guards its own state with mutexes,
/// so the loop thread and the callers of publish/subscribe may use it at the same time, and the client
/// is destroyed exactly once, in `deinit`, when no thread can reach it any more.
final class MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Creates the client and applies protocol version, credentials, TLS and the last will.
    /// - Throws: `MQTTError.invalidConfiguration` for settings libmosquitto rejects or files that
    ///   cannot be read; `.invalidTopic`, `.payloadTooLarge` or `.invalidMessage` for a bad will.
    init(configuration: MQTTConfiguration, endpoint: MQTTEndpoint) throws(MQTTError) {
        _ = mosquittoLibraryInitialised
        let clientID = configuration.clientID.isEmpty ? nil : configuration.clientID
        // Without a persistent session every connection starts clean; with one, the broker keeps the
        // subscriptions and the QoS 1/2 messages that arrive while the client is away.
        guard let pointer = mosquitto_new(clientID, configuration.sessionExpiry == nil, nil) else {
            throw .invalidConfiguration("libmosquitto could not create a client: \(String(cString: strerror(errno)))")
        }
        self.pointer = pointer
        // Our own loop thread drives the client; without this libmosquitto would write to the socket
        // from the publishing thread.
        try check(mosquitto_threaded_set(pointer, true), "threaded mode")
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
        // 0 = no limit of our own; an MQTT 5 broker still imposes its Receive Maximum. The default of 20
        // would stall bursts of QoS 1 state messages.
        try check(mosquitto_max_inflight_messages_set(pointer, 0), "in-flight limit")
        // Without it, Nagle's algorithm holds a small packet (a `/set` result after its state message)
        // until the broker acknowledges the one before, which its delayed ACK postpones by up to 40 ms.
        try check(mosquitto_int_option(pointer, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        if configuration.username != nil || configuration.password != nil {
            try check(
                mosquitto_username_pw_set(pointer, configuration.username, configuration.password),
                "user name and password (MQTT 3.1.1 needs a user name with a password)")
        }
        try configureTLS(configuration, endpoint: endpoint)
        if let will = configuration.will {
            try setWill(will, protocolVersion: configuration.protocolVersion)
        }
    }

    deinit {
        mosquitto_user_data_set(pointer, nil)
        mosquitto_destroy(pointer)
    }

    private func configureTLS(_ configuration: MQTTConfiguration, endpoint: MQTTEndpoint) throws(MQTTError) {
        let files = [
            ("caFile", configuration.tls.caFile), ("certFile", configuration.tls.certFile),
            ("keyFile", configuration.tls.keyFile),
        ]
        guard endpoint.usesTLS else {
            if let (name, _) = files.first(where: { $0.1 != nil }) {
                throw .invalidConfiguration("\(name) is set but the URL is mqtt://; use mqtts:// for TLS")
            }
            return
        }
        for case (let name, let path?) in files where !FileManager.default.isReadableFile(atPath: path) {
            throw .invalidConfiguration("\(name) \(path) cannot be read")
        }
        if (configuration.tls.certFile == nil) != (configuration.tls.keyFile == nil) {
            throw .invalidConfiguration("certFile and keyFile go together")
        }
        var caFile = configuration.tls.caFile
        var caPath: String?
        if configuration.tls.caFile == nil {
            try check(mosquitto_int_option(pointer, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "system CA certificates")
            // libmosquitto 2.0.11 keeps the TLS context of the first connection and, on every later one,
            // refuses it without a CA file, directory or PSK (net__init_ssl_ctx: "MOSQ_OPT_SSL_CTX_WITH_DEFAULTS
            // used without specifying cafile, capath or psk"): with the option alone a client never
            // reconnects. The system store's own locations satisfy it and trust nothing the option does not.
            // mosquitto_tls_set needs them for a client certificate too.
            let system = Self.systemCALocations()
            guard system.file != nil || system.directory != nil else {
                throw .invalidConfiguration(
                    "mqtts:// without caFile trusts the system's CA certificates, and there are none here "
                        + "(OpenSSL looks in \(system.looked)): install them (the ca-certificates package) or set caFile"
                )
            }
            caFile = system.file
            caPath = system.directory
        }
        try check(
            mosquitto_tls_set(pointer, caFile, caPath, configuration.tls.certFile, configuration.tls.keyFile, nil),
            "TLS files")
    }

    /// Where OpenSSL finds the system's CA certificates, as `SSL_CTX_set_default_verify_paths` looks for
    /// them: `SSL_CERT_FILE` and `SSL_CERT_DIR` when set, else the file and directory OpenSSL was built
    /// with; each only when it exists. `looked` names both, for an error.
    static func systemCALocations() -> (file: String?, directory: String?, looked: String) {
        func location(variable: UnsafePointer<CChar>, builtIn: UnsafePointer<CChar>) -> String {
            getenv(variable).map { String(cString: $0) } ?? String(cString: builtIn)
        }
        let file = location(variable: X509_get_default_cert_file_env(), builtIn: X509_get_default_cert_file())
        let directory = location(variable: X509_get_default_cert_dir_env(), builtIn: X509_get_default_cert_dir())
        // OpenSSL reads a list of directories, separated as PATH is.
        let anyDirectory = directory.split(separator: ":").contains { part in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: String(part), isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        return (
            FileManager.default.isReadableFile(atPath: file) ? file : nil, anyDirectory ? directory : nil,
            "\(file) and \(directory); SSL_CERT_FILE and SSL_CERT_DIR name others"
        )
    }

    private func setWill(_ will: MQTTMessage, protocolVersion: MQTTProtocolVersion) throws(MQTTError) {
        try MQTTTopic.validateName(will.topic)
        try MosquittoProperties.checkPayloadSize(will.payload.count)
        var properties = try MosquittoProperties.makeList(will.properties, protocolVersion: protocolVersion)
        let rc = will.payload.withUnsafeBytes { payload in
            mosquitto_will_set_v5(
                pointer, will.topic, Int32(payload.count), payload.baseAddress,
                will.qos.rawValue, will.retain, properties)
        }
        // On success libmosquitto owns the property list; on failure it is ours to free.
        if rc != MOSQ_ERR_SUCCESS.rawValue { mosquitto_property_free_all(&properties) }
        try check(rc, "last will")
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw .invalidConfiguration("\(what): \(MosquittoError.text(rc))")
    }
}
