/// `hap2mqtt unpair NAME|ID`: removes a pairing from the accessory (HAP spec §5.12, Remove Pairing)
/// and from the state directory.
struct UnpairCommand: Subcommand {
    static let name = "unpair"
    static let abstract = "Remove a pairing from the accessory and the state directory."
    static let arguments = [
        ArgumentSpec("NAME|ID", "The pairing's name or id, as hap2mqtt accessories lists it."),
    ]

    /// The pairing's name or id, as given.
    var pairing: String

    init(pairing: String) { self.pairing = pairing }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        guard let pairing = arguments.positionals.first else {
            throw .missingArgument(Self.arguments[0].name, command: Self.name)
        }
        self.pairing = pairing
    }

    func validate() throws(CommandLineError) {
        guard !pairing.trimmingSpaces.isEmpty else {
            throw Self.invalid(Self.arguments[0].name, "must not be empty")
        }
    }
}
