/// `hap2mqtt import (--home-assistant PATH | --aiohomekit FILE)`: takes over the IP accessories another
/// controller paired (Home Assistant's HomeKit Controller, or aiohomekit itself) without resetting any
/// (docs/backup.md).
struct ImportCommand: Subcommand {
    static let name = "import"
    static let abstract = "Take over the accessories Home Assistant's HomeKit Controller or aiohomekit paired."
    static let discussion = """
        Reads Home Assistant's .storage/core.config_entries (PATH is Home Assistant's configuration
        folder, or that file) or aiohomekit's pairing file, and never writes to either. Each IP accessory
        is paired here with the other controller's keys, then given hap2mqtt's own pairing when it can be
        reached; one line per accessory says what to do in Home Assistant next. Bluetooth and Thread
        accessories are listed and skipped. Works while hap2mqtt run runs.
        """
    static let options = [
        OptionSpec(
            "home-assistant", "PATH", "Home Assistant's configuration folder, or its .storage/core.config_entries."),
        OptionSpec("aiohomekit", "FILE", "aiohomekit's pairing file (what Controller.save_data writes)."),
    ]

    /// Where the pairings come from.
    enum Source: Sendable, Hashable {
        /// Home Assistant's configuration folder or its `core.config_entries`.
        case homeAssistant(String)
        /// aiohomekit's pairing file.
        case aiohomekit(String)
    }

    /// Where the pairings come from.
    var source: Source

    init(source: Source) { self.source = source }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        switch (arguments.options["home-assistant"], arguments.options["aiohomekit"]) {
        case (.some(let path), nil): source = .homeAssistant(path)
        case (nil, .some(let path)): source = .aiohomekit(path)
        case (.some, .some): throw Self.invalid("--home-assistant", "conflicts with --aiohomekit: import one at a time")
        case (nil, nil): throw .missingOption("--home-assistant or --aiohomekit", command: Self.name)
        }
    }
}
