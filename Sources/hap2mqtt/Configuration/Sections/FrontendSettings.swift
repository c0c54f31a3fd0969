import Web

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        try Self.checkToken(authToken, file: authTokenFile, in: &section)
        if enabled, authToken == nil, !WebPageConfiguration.isLoopback(host: host) {
            let problem =
                "is not a loopback address, so other machines can reach the web page: set "
                + "\(section.keyPath("auth_token_file")) (or \(section.keyPath("auth_token"))), or use 127.0.0.1"
            throw hostValue?.invalid(problem) ?? section.invalid(problem)
        }
    }

    /// The fewest characters a token may have: a shorter one can be guessed (docs/DESIGN.md "Web page").
    static let shortestToken = 16

    /// Refuses a token shorter than `shortestToken` and a token file that every user of the machine may
    /// read (the "other" read bit). A file the group may read is accepted: a container or service often
    /// shares the token with the service's group.
    private static func checkToken(_ token: Secret?, file: String?, in section: inout ConfigurationSection)
        throws(ConfigurationError)
    {
        guard let token else { return }
        let key = section.keyPath(file == nil ? "auth_token" : "auth_token_file")
        let source = file.map { "the token in \($0)" } ?? "the token"
        if token.reveal.count < shortestToken {
            throw section.invalid(
                "\(key): \(source) has \(token.reveal.count) characters; use at least \(shortestToken) "
                    + "(for example the output of `openssl rand -hex 16`)")
        }
        var status = stat()
        if let file, stat(file, &status) == 0, status.st_mode & S_IROTH != 0 {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw section.invalid(
                "\(key): \(file) can be read by every user of this machine (mode \(mode)); "
                    + "chmod o-r \(file) (600, or 640 with the service's group)")
        }
    }
}
