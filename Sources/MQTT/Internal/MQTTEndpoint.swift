/// Where the broker is, parsed from `MQTTConfiguration.url`.
struct MQTTEndpoint: Sendable, Hashable {
    var host: String
    var port: Int
    var usesTLS: Bool

    /// Parses `mqtt://host[:port]` or `mqtts://host[:port]`, with an optional trailing `/` and IPv6
    /// literals in brackets. Credentials, paths and queries are refused rather than ignored, so a
    /// mistyped URL is noticed.
    init(url: String) throws(MQTTError) {
        let parts = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .invalidURL("\(url): expected mqtt://host:port or mqtts://host:port") }
        switch parts[0].lowercased() {
        case "mqtt", "tcp": usesTLS = false
        case "mqtts", "ssl", "tls": usesTLS = true
        default: throw .invalidURL("\(url): unknown scheme \"\(parts[0])\"; use mqtt:// or mqtts://")
        }
        var authority = parts[1]
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains(where: { "/?#@ ".contains($0) }) {
            throw .invalidURL("\(url): only host and port are allowed (user name and password have their own settings)")
        }
        let hostPart: Substring
        let portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidURL("\(url): unclosed [ in IPv6 address")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty {
                portPart = nil
            } else if rest.hasPrefix(":") {
                portPart = rest.dropFirst()
            } else {
                throw .invalidURL("\(url): unexpected text after the IPv6 address")
            }
        } else {
            let pieces = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else {
                throw .invalidURL("\(url): put IPv6 addresses in brackets, as mqtt://[::1]:1883")
            }
            hostPart = pieces[0]
            portPart = pieces.count == 2 ? pieces[1] : nil
        }
        guard !hostPart.isEmpty else { throw .invalidURL("\(url): the host is missing") }
        host = String(hostPart)
        if let portPart {
            guard let number = Int(portPart), (1...65_535).contains(number) else {
                throw .invalidURL("\(url): the port must be a number from 1 to 65535")
            }
            port = number
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }
}
