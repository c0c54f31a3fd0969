/// `hap2mqtt pair --host H --port P [--code-file PATH | --code - | --code XXX-XX-XXX] [--name N]`: HAP
/// pair-setup with an accessory (HAP spec §5.6), storing the pairing in the state directory. Without a
/// code option the code is asked for on the terminal, without echo.
struct PairCommand: Subcommand {
    static let name = "pair"
    static let abstract = "Pair with a HomeKit accessory and keep the pairing in the state directory."
    static let discussion = """
        The accessory must not be paired with another controller (reset it, or remove it from the Home
        app first). 'avahi-browse -rt _hap._tcp' lists the host and port of accessories on the network
        (sf=1 in the TXT record: ready to pair).

        Give the setup code with --code-file or --code - (standard input), or type it when asked (it is
        not shown): --code XXX-XX-XXX leaves it visible to every user of the machine in 'ps' while
        pairing runs, and in the shell's history.
        """
    static let options = [
        OptionSpec("host", "H", "The accessory's host name or IP address.", required: true),
        OptionSpec("port", "P", "The accessory's HAP port, 1 to 65535.", required: true),
        OptionSpec("code-file", "PATH", "Read the setup code from the first line of this file."),
        OptionSpec("code", "XXX-XX-XXX", "The setup code; '-' reads it from standard input (without either, it is asked for)."),
        OptionSpec("name", "N", "A name for the pairing (default: the accessory's name)."),
    ]

    /// The accessory's host name or IP address.
    var host: String
    /// The accessory's HAP TCP port, 1 to 65535.
    var port: Int
    /// Where the setup code comes from; its format is checked when it is read. Never printed.
    var code: SetupCodeInput
    /// The pairing's name; nil to use the accessory's.
    var name: String?

    init(host: String, port: Int, code: SetupCodeInput, name: String? = nil) {
        self.host = host
        self.port = port
        self.code = code
        self.name = name
    }

    init(host: String, port: Int, code: Secret, name: String? = nil) {
        self.init(host: host, port: port, code: .argument(code), name: name)
    }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        host = try arguments.required("host")
        let portText = try arguments.required("port")
        guard let port = Int(portText) else {
            throw Self.invalid("--port", "expected a number from 1 to 65535, got \(portText.jsonQuoted)")
        }
        self.port = port
        switch (arguments.options["code"], arguments.options["code-file"]) {
        case (.some, .some):
            throw Self.invalid("--code", "conflicts with --code-file: give the setup code one way")
        case (.some("-"), nil): code = .standardInput
        case (.some(let text), nil): code = .argument(Secret(text))
        case (nil, .some(let path)): code = .file(path)
        case (nil, nil): code = .prompt
        }
        name = arguments.options["name"]
    }

    func validate() throws(CommandLineError) {
        guard !host.trimmingSpaces.isEmpty else { throw Self.invalid("--host", "must not be empty") }
        guard (1...65535).contains(port) else {
            throw Self.invalid("--port", "expected a number from 1 to 65535, got \(port)")
        }
        switch code {
        case .argument(let text) where text.reveal.trimmingSpaces.isEmpty: throw Self.invalid("--code", "must not be empty")
        case .file(let path) where path.isEmpty: throw Self.invalid("--code-file", "must not be empty")
        default: break
        }
        if let name, name.trimmingSpaces.isEmpty { throw Self.invalid("--name", "must not be empty") }
        // A name is printed in lists and logs, one per line.
        if let name, name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Self.invalid("--name", "must not contain line breaks or other control characters")
        }
    }
}
