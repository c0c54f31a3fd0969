/// `hap2mqtt run`: the gateway itself, until SIGINT or SIGTERM.
struct RunCommand: Subcommand {
    static let name = "run"
    static let abstract = "Run the gateway: connect to the paired accessories and the MQTT broker."
    static let discussion = """
        Runs until SIGINT or SIGTERM, then publishes the bridge as offline and disconnects.
        """

    init() {}
    init(_ arguments: ParsedArguments) {}
}
