import Web

/// The `frontend` section: the web page `run` serves (docs/DESIGN.md "Web page").
struct FrontendSettings: Sendable, Hashable {
    /// `frontend.enabled`: serve the page. On by default, so that a user finds it without editing anything:
    /// on 127.0.0.1 it is this machine's alone (docs/DESIGN.md "Web page"), and `run` stops with one line
    /// when the port is taken.
    var enabled = true
    /// `frontend.host`: the address to listen on.
    var host = "127.0.0.1"
    /// `frontend.port`: the TCP port; 0 lets the system choose one (the log says which).
    var port = 8780
    /// `frontend.auth_token`, or the content of `frontend.auth_token_file` without its trailing newline.
    var authToken: Secret?
    /// `frontend.auth_token_file`: where the token came from, when it came from a file.
    var authTokenFile: String?

    init() {}

    /// Reads the section.
    /// - Throws: `ConfigurationError` for a bad value, an unreadable token file, both token keys set, or
    ///   an enabled page on an address other machines can reach without a token.
    init(reading section: inout ConfigurationSection) throws(ConfigurationError) {
        if let value = section.value("enabled") { enabled = try value.bool() }
        let hostValue = section.value("host")
        if let hostValue { host = try hostValue.nonEmptyText() }
        if let value = section.value("port") {
            let expected = "a TCP port from 0 (any free one) to 65535"
            let port = try value.integer(expected)
            guard (0...65535).contains(port) else { throw value.invalid("expected \(expected), got \(port)") }
            self.port = port
        }
        (authToken, authTokenFile) = try section.secret("auth_token", file: "auth_token_file")
        if let file = authTokenFile, authToken?.reveal.isEmpty == true {
            throw section.invalid("\(section.keyPath("auth_token_file")): \(file) is empty; put the token in it")
        }
        if enabled, authToken == nil, !WebPageConfiguration.isLoopback(host: host) {
            let problem =
                "is not a loopback address, so other machines can reach the web page: set "
                + "\(section.keyPath("auth_token_file")) (or \(section.keyPath("auth_token"))), or use 127.0.0.1"
            throw hostValue?.invalid(problem) ?? section.invalid(problem)
        }
    }
}
