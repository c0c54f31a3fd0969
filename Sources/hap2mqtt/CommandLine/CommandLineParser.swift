/// Turns `hap2mqtt`'s arguments into an `Invocation`.
///
/// Accepted: `hap2mqtt [global options] <command> [options] [arguments]`, with options before or after
/// the command, as `--name value` or `--name=value` (a command's flags, such as `--force`, take no
/// value); `--` ends the options. The first argument that
/// is neither an option nor an option's value names the command. Unknown options are errors wherever
/// they are; otherwise `--version` wins, then `--help`/`-h`, before the command's own checks (so
/// `hap2mqtt pair --help` needs no `--host`).
enum CommandLineParser {
    /// Parses `arguments` (without the program's name).
    /// - Throws: `CommandLineError` for an unknown command or option, a missing or bad value, or an
    ///   argument too many or too few.
    static func parse(_ arguments: [String]) throws(CommandLineError) -> Invocation {
        let tokens = tokenize(arguments)
        let commandName = firstWord(in: tokens)
        let command = commandName.flatMap { Command.type(named: $0) }?.name

        var options = GlobalOptions()
        var parsed = ParsedArguments(command: commandName ?? "")
        var help = false
        var version = false
        var sawCommand = false
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .word(let word):
                if sawCommand { parsed.positionals.append(word) } else { sawCommand = true }
            case .option(let name, let inline):
                if name == "help" || name == "version" {
                    guard inline == nil else { throw .unexpectedValue(option: "--\(name)", command: command) }
                    if name == "help" { help = true } else { version = true }
                    continue
                }
                let commandOptions = command.flatMap { Command.type(named: $0) }?.options ?? []
                let isGlobal = GlobalOptions.options.contains { $0.name == name }
                guard isGlobal || commandOptions.contains(where: { $0.name == name }) else {
                    throw .unknownOption(display(name), command: command)
                }
                if commandOptions.contains(where: { $0.name == name && $0.valueName == nil }) {
                    // A command's flag (`unpair --force`): present or not, never with a value.
                    guard inline == nil else { throw .unexpectedValue(option: "--\(name)", command: command) }
                    guard parsed.options[name] == nil else { throw .repeatedOption("--\(name)", command: command) }
                    parsed.options[name] = ""
                    continue
                }
                var value = inline
                if value == nil, index < tokens.count, case .word(let next) = tokens[index] {
                    value = next
                    index += 1
                }
                guard let value else { throw .missingValue(option: "--\(name)", command: command) }
                if try options.set(name, to: value, command: command) { continue }
                guard parsed.options[name] == nil else { throw .repeatedOption("--\(name)", command: command) }
                parsed.options[name] = value
            }
        }

        if version { return Invocation(options: options, action: .version) }
        if let commandName, command == nil { throw .unknownCommand(commandName) }
        if help { return Invocation(options: options, action: .help(command: command)) }
        guard command != nil else { throw .missingCommand }
        return Invocation(options: options, action: .command(try Command.parse(parsed)))
    }

    private enum Token: Equatable {
        /// An option without dashes (`host`, or `h` for `-h`), and its `=value` if any.
        case option(String, inline: String?)
        /// Anything else: the command, an option's value, an argument.
        case word(String)
    }

    private static func tokenize(_ arguments: [String]) -> [Token] {
        var tokens: [Token] = []
        var optionsEnded = false
        for argument in arguments {
            // A negative number is a value (`--timeout -1`), so that its own check says what is wrong.
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") || Double(argument) != nil {
                tokens.append(.word(argument))
            } else if argument == "--" {
                optionsEnded = true
            } else if argument == "-h" {
                tokens.append(.option("help", inline: nil))
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    tokens.append(.option(String(body[..<equals]), inline: String(body[body.index(after: equals)...])))
                } else {
                    tokens.append(.option(String(body), inline: nil))
                }
            } else {
                // A single-dash option other than -h: kept with its dash so the error shows it as typed.
                tokens.append(.option(argument, inline: nil))
            }
        }
        return tokens
    }

    /// The command's name: the first word that is not the value of a known option written as
    /// `--name value`.
    private static func firstWord(in tokens: [Token]) -> String? {
        let valued = Set(
            (GlobalOptions.options + Command.all.flatMap { $0.options }).filter { $0.valueName != nil }.map(\.name))
        var index = 0
        while index < tokens.count {
            switch tokens[index] {
            case .word(let word): return word
            case .option(let name, let inline):
                if inline == nil, valued.contains(name) { index += 1 }
            }
            index += 1
        }
        return nil
    }

    private static func display(_ name: String) -> String { name.hasPrefix("-") ? name : "--\(name)" }
}
