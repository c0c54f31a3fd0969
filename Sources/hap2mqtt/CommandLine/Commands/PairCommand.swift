import HAPController
import JSON

/// `hap2mqtt pair (--id ID | --host H --port P) [--code-file PATH | --code - | --code XXX-XX-XXX] [--name N]`:
/// HAP pair-setup with an accessory (HAP spec §5.6), storing the pairing in the state directory. With `--id`
/// the address and port come from the accessory's DNS-SD announcement (README "Finding accessories").
/// Without a code option the code is asked for on the terminal, without echo.
struct PairCommand: Subcommand {
    static let name = "pair"
    static let abstract = "Pair with a HomeKit accessory and keep the pairing in the state directory."
    static let discussion = """
        The accessory must not be paired with another controller (reset it, or remove it from the Home
        app first). With --id (hap2mqtt discover lists the ids) its address and port are what it
        announces on the network; --host and --port, when given, are used instead.

        Give the setup code with --code-file or --code - (standard input), or type it when asked (it is
        not shown): --code XXX-XX-XXX leaves it visible to every user of the machine in 'ps' while
        pairing runs, and in the shell's history.
        """
    static let options = [
        OptionSpec("id", "ID", "The accessory's id XX:XX:XX:XX:XX:XX, as hap2mqtt discover lists it."),
        OptionSpec("host", "H", "The accessory's host name or IP address (needed without --id)."),
        OptionSpec("port", "P", "The accessory's HAP port, 1 to 65535 (needed without --id)."),
        OptionSpec("code-file", "PATH", "Read the setup code from the first line of this file."),
        OptionSpec(
            "code", "XXX-XX-XXX", "The setup code; '-' reads it from standard input (without either, it is asked for)."),
        OptionSpec("name", "N", "A name for the pairing (default: the accessory's name)."),
    ]

    /// The accessory's device id as given (any case); nil to pair at `host` and `port` alone.
    var id: String?
    /// The accessory's host name or IP address; nil to take the announced one.
    var host: String?
    /// The accessory's HAP TCP port, 1 to 65535; nil to take the announced one.
    var port: Int?
    /// Where the setup code comes from; its format is checked when it is read. Never printed.
    var code: SetupCodeInput
    /// The pairing's name; nil to use the accessory's.
    var name: String?

    init(id: String? = nil, host: String?, port: Int?, code: SetupCodeInput, name: String? = nil) {
        self.id = id
        self.host = host
        self.port = port
        self.code = code
        self.name = name
    }

    init(id: String? = nil, host: String?, port: Int?, code: Secret, name: String? = nil) {
        self.init(id: id, host: host, port: port, code: .argument(code), name: name)
    }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        id = arguments.options["id"]
        if id == nil {
            host = try arguments.required("host")
            _ = try arguments.required("port")
        } else {
            host = arguments.options["host"]
        }
        if let portText = arguments.options["port"] {
            guard let port = Int(portText) else {
                throw Self.invalid("--port", "expected a number from 1 to 65535, got \(portText.jsonQuoted)")
            }
            self.port = port
        }
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
        if let id, HAPAdvertisement.deviceID(id) == nil {
            throw Self.invalid("--id", "expected a device id XX:XX:XX:XX:XX:XX (hex digits), got \(id.jsonQuoted)")
        }
        if let host, host.trimmingSpaces.isEmpty { throw Self.invalid("--host", "must not be empty") }
        if let port, !(1...65535).contains(port) {
            throw Self.invalid("--port", "expected a number from 1 to 65535, got \(port)")
        }
        switch code {
        case .argument(let text) where text.reveal.trimmingSpaces.isEmpty:
            throw Self.invalid("--code", "must not be empty")
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
