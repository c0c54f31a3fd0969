import HomeStore

/// `hap2mqtt pairings NAME|ID [--add PAIRING_ID --key KEY [--admin] | --remove PAIRING_ID]`: lists the
/// controllers paired with an accessory, or adds or removes one (HAP spec §5.10–§5.12), then lists them.
struct PairingsCommand: Subcommand {
    static let name = "pairings"
    static let abstract = "List, add or remove the controllers paired with an accessory."
    static let discussion = """
        Without --add or --remove, lists the controllers the accessory holds, with their public keys
        and whether each is an admin. --add gives another controller (a standby gateway, another home
        hub) a pairing of its own with the accessory; --remove takes one away. This gateway's own
        pairing is removed with unpair, which also forgets it here. Only an admin may do any of this;
        the accessory's own answer is printed.
        """
    static let options = [
        OptionSpec("add", "PAIRING_ID", "Add the controller with this pairing id (needs --key)."),
        OptionSpec("key", "KEY", "The controller's Ed25519 public key: 32 bytes as 64 hex digits or base64."),
        OptionSpec("admin", nil, "Make the controller added an admin (it may manage pairings too)."),
        OptionSpec("remove", "PAIRING_ID", "Remove the controller with this pairing id."),
    ]
    static let arguments = [
        ArgumentSpec("NAME|ID", "The pairing's name or id, as hap2mqtt accessories lists it.")
    ]

    /// What to do besides listing.
    enum Change: Sendable, Hashable {
        case none
        case add(ControllerPairing)
        case remove(String)
    }

    /// The pairing's name or id, as given.
    var pairing: String
    var change: Change

    init(pairing: String, change: Change = .none) {
        self.pairing = pairing
        self.change = change
    }

    init(_ arguments: ParsedArguments) throws(CommandLineError) {
        pairing = try Self.firstArgument(arguments)
        let admin = arguments.options["admin"] != nil
        switch (arguments.options["add"], arguments.options["remove"]) {
        case (.some, .some): throw Self.invalid("--add", "conflicts with --remove: do one at a time")
        case (.some(let id), nil):
            let key = try arguments.required("key")
            do {
                change = .add(try ControllerPairing(parsingID: id, publicKey: key, admin: admin))
            } catch {
                throw Self.invalid("--add", error.description)
            }
        case (nil, .some(let id)):
            change = .remove(id)
        case (nil, nil):
            change = .none
        }
        if arguments.options["key"] != nil, arguments.options["add"] == nil {
            throw Self.invalid("--key", "goes with --add")
        }
        if admin, arguments.options["add"] == nil { throw Self.invalid("--admin", "goes with --add") }
    }

    func validate() throws(CommandLineError) {
        guard !pairing.trimmingSpaces.isEmpty else {
            throw Self.invalid(Self.arguments[0].name, "must not be empty")
        }
        if case .remove(let id) = change, id.isEmpty { throw Self.invalid("--remove", "must not be empty") }
    }
}
