/// `hap2mqtt accessories`: the paired accessories with their ids, services and characteristics.
struct AccessoriesCommand: Subcommand {
    static let name = "accessories"
    static let abstract = "List the paired accessories with their services and characteristics."

    init() {}
    init(_ arguments: ParsedArguments) {}
}
