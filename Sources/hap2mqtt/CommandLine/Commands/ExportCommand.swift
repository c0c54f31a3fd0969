/// `hap2mqtt export --aiohomekit FILE`: the pairings as a pairing file of aiohomekit (and so of Home
/// Assistant's HomeKit Controller), so that leaving hap2mqtt never needs an accessory reset (docs/backup.md).
struct ExportCommand: Subcommand {
    static let name = "export"
    static let abstract = "Write the pairings as a pairing file aiohomekit can use."
    static let discussion = """
        The file holds this controller's keys (mode 0600): aiohomekit then reaches every accessory as
        hap2mqtt does, with the same identity. Stop hap2mqtt run for good before using it, and never run
        hap2mqtt unpair afterwards: that removes the identity both share from the accessory.
        """
    static let options = [
        OptionSpec(
            "aiohomekit", "FILE", "Where to write aiohomekit's pairing file (it must not exist).", required: true)
    ]

    /// The pairing file's path.
    var aiohomekit: String

    init(aiohomekit: String) { self.aiohomekit = aiohomekit }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        aiohomekit = try arguments.required("aiohomekit")
    }

    func validate() throws(CommandLineError) {
        guard !aiohomekit.isEmpty else { throw Self.invalid("--aiohomekit", "must not be empty") }
    }
}
