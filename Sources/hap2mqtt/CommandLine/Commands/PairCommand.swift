/// `hap2mqtt pair --host H --port P --code XXX-XX-XXX [--name N]`: HAP pair-setup with an accessory
/// (HAP spec §5.6), storing the pairing in the state directory.
struct PairCommand: Subcommand {
    static let name = "pair"
    static let abstract = "Pair with a HomeKit accessory and keep the pairing in the state directory."
    static let discussion = """
        The accessory must not be paired with another controller (reset it, or remove it from the Home
        app first). 'avahi-browse -rt _hap._tcp' lists the host and port of accessories on the network
        (sf=1 in the TXT record: ready to pair).
        """
    static let options = [
        OptionSpec("host", "H", "The accessory's host name or IP address.", required: true),
        OptionSpec("port", "P", "The accessory's HAP port, 1 to 65535.", required: true),
        OptionSpec("code", "XXX-XX-XXX", "The setup code from the accessory's label or screen.", required: true),
        OptionSpec("name", "N", "A name for the pairing (default: the accessory's name)."),
    ]

    /// The accessory's host name or IP address.
    var host: String
    /// The accessory's HAP TCP port, 1 to 65535.
    var port: Int
    /// The setup code as given; its format is checked by pair-setup. Never printed.
    var code: Secret
    /// The pairing's name; nil to use the accessory's.
    var name: String?

    init(host: String, port: Int, code: Secret, name: String? = nil) {
        self.host = host
        self.port = port
        self.code = code
        self.name = name
    }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        host = try arguments.required("host")
        let portText = try arguments.required("port")
        guard let port = Int(portText) else {
            throw Self.invalid("--port", "expected a number from 1 to 65535, got \(portText.jsonQuoted)")
        }
        self.port = port
        code = Secret(try arguments.required("code"))
        name = arguments.options["name"]
    }

    func validate() throws(CommandLineError) {
        guard !host.trimmingSpaces.isEmpty else { throw Self.invalid("--host", "must not be empty") }
        guard (1...65535).contains(port) else {
            throw Self.invalid("--port", "expected a number from 1 to 65535, got \(port)")
        }
        guard !code.reveal.trimmingSpaces.isEmpty else { throw Self.invalid("--code", "must not be empty") }
        if let name, name.trimmingSpaces.isEmpty { throw Self.invalid("--name", "must not be empty") }
        // A name is printed in lists and logs, one per line.
        if let name, name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Self.invalid("--name", "must not contain line breaks or other control characters")
        }
    }
}
