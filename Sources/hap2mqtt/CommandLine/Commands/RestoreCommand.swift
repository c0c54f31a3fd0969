/// `hap2mqtt restore --from FILE [--passphrase-file PATH|-]`: writes a backup's files into the state
/// directory (docs/backup.md).
struct RestoreCommand: Subcommand {
    static let name = "restore"
    static let abstract = "Bring the pairings back from an archive of hap2mqtt backup."
    static let discussion = """
        Restores into an empty state directory, or the one the backup was made of; a state directory
        that holds other pairings or another controller identity is refused and left as it is, and so is
        one a running hap2mqtt run uses. Then start hap2mqtt run: every accessory comes online without
        pairing again.
        """
    static let options = [
        OptionSpec("from", "FILE", "The archive hap2mqtt backup wrote.", required: true),
        PassphraseInput.option,
    ]

    /// The archive's path.
    var from: String
    /// Where the passphrase comes from.
    var passphrase: PassphraseInput
}

extension RestoreCommand {
    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        from = try arguments.required("from")
        passphrase = PassphraseInput(arguments)
    }

}
