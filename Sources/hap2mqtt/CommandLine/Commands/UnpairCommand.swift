/// `hap2mqtt unpair NAME|ID`: removes a pairing from the accessory (HAP spec §5.12, Remove Pairing)
/// and from the state directory.
struct UnpairCommand: Subcommand {
    static let name = "unpair"
    static let abstract = "Remove a pairing from the accessory and the state directory."
    static let discussion = """
        When the accessory cannot be reached the pairing is kept, so that unpair can be run again once
        the accessory is back; --force forgets it here anyway (the accessory must then be reset before
        another controller can pair with it).
        """
    static let options = [
        OptionSpec("force", nil, "Forget the pairing here even when the accessory cannot be told.")
    ]
    static let arguments = [
        ArgumentSpec("NAME|ID", "The pairing's name or id, as hap2mqtt accessories lists it.")
    ]

    /// The pairing's name or id, as given.
    var pairing: String
    /// `--force`: delete the local pairing even when the accessory could not remove it.
    var force: Bool

    init(pairing: String, force: Bool = false) {
        self.pairing = pairing
        self.force = force
    }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        pairing = try Self.firstArgument(arguments)
        force = arguments.options["force"] != nil
    }

    func validate() throws(CommandLineError) {
        guard !pairing.trimmingSpaces.isEmpty else {
            throw Self.invalid(Self.arguments[0].name, "must not be empty")
        }
    }
}
