import JSON

/// The broker's address from `mqtt.url`: `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (TLS), with an
/// IPv6 host in brackets (`mqtt://[::1]:1883`). The port defaults to 1883, or 8883 for TLS (IANA).
///
/// A user name or password in the URL is refused rather than used: credentials belong in
/// `mqtt.username` and `mqtt.password_file`, where they are kept out of logs and `bridge/info`.
struct MQTTBrokerURL: Sendable, Hashable, CustomStringConvertible {
    /// True for `mqtts://`.
    var usesTLS: Bool
    /// A host name or an IP address (IPv6 without brackets).
    var host: String
    /// The TCP port, 1 to 65535.
    var port: Int

    /// `mqtt://host:port` or `mqtts://host:port`, with the port always written.
    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }

    init(usesTLS: Bool, host: String, port: Int) {
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
    }

    /// Parses the value of `mqtt.url`.
    /// - Throws: `ConfigurationError.invalidValue` for another scheme, a missing host, a bad port, a
    ///   path, or credentials (the URL is then not repeated, as it holds a password).
    init(_ value: ConfigurationValue) throws(ConfigurationError) {
        let text = try value.text()
        let expected = "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT], got \(text.jsonQuoted)"
        guard let separator = text.range(of: "://") else { throw value.invalid(expected) }
        switch text[..<separator.lowerBound].lowercased() {
        case "mqtt": usesTLS = false
        case "mqtts": usesTLS = true
        default: throw value.invalid(expected)
        }
        var authority = text[separator.upperBound...]
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains("@") else {
            throw value.invalid("must not hold a user name or password; use mqtt.username and mqtt.password_file")
        }
        guard !authority.contains(where: { "/?#".contains($0) }) else { throw value.invalid(expected) }

        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw value.invalid(expected) }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw value.invalid(expected) }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, !host.contains(":") || authority.hasPrefix("[") else { throw value.invalid(expected) }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw value.invalid("port must be a number from 1 to 65535, got \(String(portText).jsonQuoted)")
            }
            self.port = port
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }
}
