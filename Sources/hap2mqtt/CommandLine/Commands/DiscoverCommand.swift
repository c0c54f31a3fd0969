/// `hap2mqtt discover [--timeout SECONDS] [--json]`: the HomeKit accessories announced on the local
/// network (DNS-SD `_hap._tcp`, HAP spec §6.4), found through the Avahi daemon within the time-out.
struct DiscoverCommand: Subcommand {
    static let name = "discover"
    /// It reads only the state directory, to say which accessories are paired here.
    static let usesConfiguration = false
    static let abstract = "List the HomeKit accessories on the network (DNS-SD through the Avahi daemon)."
    static let discussion = """
        Shows each accessory's name, id, model, category, address, port, configuration and state number
        (c#, s#), and whether it is paired: with this gateway (and under which name), with another
        controller, or not at all (then hap2mqtt pair --id ID pairs it). Needs a running avahi-daemon.
        """
    static let options = [
        OptionSpec("timeout", "SECONDS", "How long to listen for announcements (default 5, at most 600)."),
        OptionSpec("json", nil, "One JSON object a line instead of a table."),
    ]

    /// The default time to listen.
    static let defaultTimeout: Duration = .seconds(5)

    /// How long to listen for announcements.
    var timeout: Duration
    /// `--json`: one JSON object a line.
    var json: Bool

    init(timeout: Duration = DiscoverCommand.defaultTimeout, json: Bool = false) {
        self.timeout = timeout
        self.json = json
    }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        json = arguments.options["json"] != nil
        guard let text = arguments.options["timeout"] else {
            timeout = Self.defaultTimeout
            return
        }
        guard let seconds = Double(text), seconds.isFinite else {
            throw Self.invalid("--timeout", "expected a number of seconds, got \(text.jsonQuoted)")
        }
        guard seconds > 0, seconds <= 600 else {
            throw Self.invalid("--timeout", "expected more than 0 and at most 600 seconds, got \(text)")
        }
        timeout = .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
