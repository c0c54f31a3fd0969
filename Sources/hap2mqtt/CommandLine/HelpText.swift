/// The `--help` texts, built from the commands' and options' specs (golden-tested).
enum HelpText {
    /// `hap2mqtt --help`.
    static var overview: String {
        var lines = [
            "OVERVIEW: A HomeKit controller (HAP over IP) that maps accessories to MQTT and back.",
            "",
            "USAGE: hap2mqtt " + GlobalOptions.options.map(\.usage).joined(separator: " ") + " <command> [options]",
            "",
            "COMMANDS:",
        ]
        lines += Command.all.map { row($0.name, $0.abstract) }
        lines += ["", "OPTIONS:"]
        lines += (GlobalOptions.options + GlobalOptions.flags).map(optionRow)
        lines += ["", "See hap2mqtt <command> --help for a command's options."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `hap2mqtt <command> --help`.
    static func command(_ command: any Subcommand.Type) -> String {
        let usage =
            ["hap2mqtt", command.name]
            + command.options.map(\.usage) + command.arguments.map(\.name) + GlobalOptions.options.map(\.usage)
        var lines = ["OVERVIEW: \(command.abstract)"]
        if !command.discussion.isEmpty { lines += ["", command.discussion] }
        lines += ["", "USAGE: " + usage.joined(separator: " ")]
        if !command.arguments.isEmpty {
            lines += ["", "ARGUMENTS:"] + command.arguments.map { row($0.name, $0.help) }
        }
        if !command.options.isEmpty {
            lines += ["", "OPTIONS:"] + command.options.map(optionRow)
        }
        lines += ["", "GLOBAL OPTIONS:"]
        lines += (GlobalOptions.options + GlobalOptions.flags.filter { $0.name == "help" }).map(optionRow)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The help for `name` (a command's name, or nil for the overview).
    static func forCommand(named name: String?) -> String {
        guard let name, let command = Command.type(named: name) else { return overview }
        return self.command(command)
    }

    private static func optionRow(_ option: OptionSpec) -> String {
        row(option.name == "help" ? "-h, --help" : option.synopsis, option.help)
    }

    private static func row(_ left: String, _ right: String) -> String {
        let width = 22
        let padded = "  " + left
        return padded.count >= width + 2
            ? padded + "\n" + String(repeating: " ", count: width + 2) + right
            : padded + String(repeating: " ", count: width + 2 - padded.count) + right
    }
}
