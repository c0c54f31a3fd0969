/// `hap2mqtt backup --to FILE [--passphrase-file PATH|-]`: the state directory's controller identity,
/// pairings, slugs, options and accessory caches as one archive encrypted with a passphrase
/// (docs/backup.md).
struct BackupCommand: Subcommand {
    static let name = "backup"
    static let abstract = "Write the pairings and the controller identity to an encrypted archive."
    static let discussion = """
        The archive holds what a new machine needs to reach every paired accessory without pairing again:
        the controller identity, every pairing with its accessory's last address, the names, the options
        and the accessory caches. It is encrypted with the passphrase (scrypt, ChaCha20-Poly1305), which
        is never taken from the command line: give it with --passphrase-file, or type it when asked.
        hap2mqtt restore --from FILE brings it back. Works while hap2mqtt run runs.
        """
    static let options = [
        OptionSpec(
            "to", "FILE", "Where to write the archive (mode 0600; an existing file is replaced).", required: true),
        PassphraseInput.option,
    ]

    /// The archive's path.
    var to: String
    /// Where the passphrase comes from.
    var passphrase: PassphraseInput
}

extension BackupCommand {
    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        to = try arguments.required("to")
        passphrase = PassphraseInput(arguments)
    }

    func validate() throws(CommandLineError) {
        guard !to.isEmpty else { throw Self.invalid("--to", "must not be empty") }
    }
}
