import HomeModel
import HomeStore
import Testing

@testable import hap2mqtt

@Suite("Command line parsing")
struct CommandLineParserTests {
    private func parse(_ line: String) throws -> Invocation {
        try CommandLineParser.parse(line.split(separator: " ").map(String.init))
    }

    private func failure(_ line: String) -> String? {
        do {
            _ = try CommandLineParser.parse(line.split(separator: " ").map(String.init))
            return nil
        } catch {
            return error.description
        }
    }

    @Test("every command parses, with options before or after it, as --opt value or --opt=value")
    func commands() throws {
        #expect(try parse("run") == Invocation(action: .command(Command(RunCommand()))))
        #expect(try parse("accessories") == Invocation(action: .command(Command(AccessoriesCommand()))))
        #expect(try parse("discover") == Invocation(action: .command(Command(DiscoverCommand()))))
        #expect(
            try parse("unpair AA:BB:CC:DD:EE:FF/1")
                == Invocation(action: .command(Command(UnpairCommand(pairing: "AA:BB:CC:DD:EE:FF/1")))))
        let pair = Invocation(
            options: GlobalOptions(configPath: "c.yaml", logLevel: .debug),
            action: .command(
                Command(PairCommand(host: "127.0.0.1", port: 51826, code: Secret("031-45-154"), name: "Lamp"))))
        #expect(
            try parse(
                "--config c.yaml pair --host 127.0.0.1 --port 51826 --code 031-45-154 --name Lamp --log-level debug")
                == pair)
        #expect(
            try parse(
                "pair --host=127.0.0.1 --port=51826 --code=031-45-154 --name=Lamp --config=c.yaml --log-level=DEBUG")
                == pair)
        #expect(
            try parse(
                "--port 51826 --host 127.0.0.1 --log-level debug --config c.yaml --name Lamp --code 031-45-154 pair")
                == pair)
        #expect(
            try CommandLineParser.parse(["unpair", "--", "--odd-name"])
                == Invocation(action: .command(Command(UnpairCommand(pairing: "--odd-name")))))
        #expect(
            try CommandLineParser.parse(["pair", "--host", "h", "--port", "1", "--code", "1", "--name", "Living Room"])
                == Invocation(
                    action: .command(Command(PairCommand(host: "h", port: 1, code: Secret("1"), name: "Living Room")))))
    }

    @Test("--version and --help win over the command's own checks")
    func helpAndVersion() throws {
        #expect(try parse("--version") == Invocation(action: .version))
        #expect(try parse("run --version") == Invocation(action: .version))
        #expect(try parse("--help") == Invocation(action: .help(command: nil)))
        #expect(try parse("-h") == Invocation(action: .help(command: nil)))
        #expect(try parse("pair --help") == Invocation(action: .help(command: "pair")))
        #expect(try parse("-h unpair") == Invocation(action: .help(command: "unpair")))
        #expect(
            try parse("--log-level info pair -h --port 0")
                == Invocation(options: GlobalOptions(logLevel: .info), action: .help(command: "pair")))
    }

    @Test("mistakes give one line that points at the right help")
    func errors() {
        #expect(failure("pair --prot 1") == "unknown option --prot for pair; see hap2mqtt pair --help")
        #expect(failure("--prot 1") == "unknown option --prot; see hap2mqtt --help")
        #expect(failure("run -v") == "unknown option -v for run; see hap2mqtt run --help")
        #expect(failure("run --host h") == "unknown option --host for run; see hap2mqtt run --help")
        #expect(failure("") == "missing command; see hap2mqtt --help")
        #expect(failure("--config c.yaml") == "missing command; see hap2mqtt --help")
        #expect(failure("serve") == #"unknown command "serve"; see hap2mqtt --help"#)
        #expect(failure("serve --help") == #"unknown command "serve"; see hap2mqtt --help"#)
        #expect(failure("run extra") == #"unexpected argument "extra" for run; see hap2mqtt run --help"#)
        #expect(failure("unpair a b") == #"unexpected argument "b" for unpair; see hap2mqtt unpair --help"#)
        #expect(failure("unpair") == "missing NAME|ID for unpair; see hap2mqtt unpair --help")
        #expect(failure("run --config") == "missing value for --config; see hap2mqtt run --help")
        #expect(failure("run --config --log-level info") == "missing value for --config; see hap2mqtt run --help")
        #expect(failure("run --config a --config b") == "--config given twice; see hap2mqtt run --help")
        #expect(failure("run --help=yes") == "--help takes no value; see hap2mqtt run --help")
        #expect(
            failure("run --log-level loud")
                == #"--log-level: expected one of trace, debug, info, notice, warning, error, got "loud"; see hap2mqtt run --help"#
        )
        #expect(failure("run --config=") == "--config: must not be empty; see hap2mqtt run --help")
    }

    @Test("unpair takes --force as a flag without a value, before or after its argument")
    func unpairForce() throws {
        let forced = Invocation(action: .command(Command(UnpairCommand(pairing: "Kitchen", force: true))))
        #expect(try parse("unpair --force Kitchen") == forced)
        #expect(try parse("unpair Kitchen --force") == forced)
        #expect(try parse("--force unpair Kitchen") == forced)
        #expect(try parse("unpair Kitchen") == Invocation(action: .command(Command(UnpairCommand(pairing: "Kitchen")))))
        #expect(failure("unpair --force=yes Kitchen") == "--force takes no value; see hap2mqtt unpair --help")
        #expect(failure("unpair --force --force Kitchen") == "--force given twice; see hap2mqtt unpair --help")
        #expect(failure("unpair --force") == "missing NAME|ID for unpair; see hap2mqtt unpair --help")
        #expect(failure("pair --force") == "unknown option --force for pair; see hap2mqtt pair --help")
    }

    @Test("pairings lists, adds with a key in hex or base64, or removes; a bad key or a stray option is a usage error")
    func pairings() throws {
        let hex = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        let key = try #require(try? ControllerPairing.publicKey(hex))
        #expect(
            try parse("pairings Kitchen") == Invocation(action: .command(Command(PairingsCommand(pairing: "Kitchen")))))
        let add = PairingsCommand(
            pairing: "Kitchen", change: .add(ControllerPairing(id: "c-1", publicKey: key, admin: true)))
        #expect(
            try parse("pairings Kitchen --add c-1 --key \(hex) --admin") == Invocation(action: .command(Command(add))))
        #expect(
            try parse("pairings Kitchen --add c-1 --key 11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo= --admin")
                == Invocation(action: .command(Command(add))))
        #expect(
            try parse("pairings Kitchen --remove c-1")
                == Invocation(action: .command(Command(PairingsCommand(pairing: "Kitchen", change: .remove("c-1"))))))
        #expect(failure("pairings Kitchen --add c-1") == "missing --key for pairings; see hap2mqtt pairings --help")
        #expect(
            failure("pairings Kitchen --add c-1 --key abcd")
                == "--add: the controller's public key must be 32 bytes (Ed25519), written as 64 hex digits or as base64; this one is 2 bytes; see hap2mqtt pairings --help"
        )
        #expect(failure("pairings Kitchen --admin") == "--admin: goes with --add; see hap2mqtt pairings --help")
        #expect(
            failure("pairings Kitchen --add a --key \(hex) --remove b")
                == "--add: conflicts with --remove: do one at a time; see hap2mqtt pairings --help")
    }

    @Test("pair checks its host, port and code, and never repeats the code")
    func pairChecks() throws {
        #expect(failure("pair --port 1 --code 1") == "missing --host for pair; see hap2mqtt pair --help")
        #expect(failure("pair --host h --code 1") == "missing --port for pair; see hap2mqtt pair --help")
        #expect(
            try parse("pair --host h --port 1")
                == Invocation(action: .command(Command(PairCommand(host: "h", port: 1, code: .prompt)))))
        #expect(
            try parse("pair --host h --port 1 --code -")
                == Invocation(action: .command(Command(PairCommand(host: "h", port: 1, code: .standardInput)))))
        #expect(
            try parse("pair --host h --port 1 --code-file c")
                == Invocation(action: .command(Command(PairCommand(host: "h", port: 1, code: .file("c"))))))
        #expect(
            failure("pair --host h --port 1 --code 1 --code-file c")
                == "--code: conflicts with --code-file: give the setup code one way; see hap2mqtt pair --help")
        #expect(
            failure("pair --host h --port 1 --code-file=") == "--code-file: must not be empty; see hap2mqtt pair --help"
        )
        #expect(failure("pair --host h --port 1 --code 1 --host i") == "--host given twice; see hap2mqtt pair --help")
        #expect(
            failure("pair --host h --port 0 --code 1")
                == "--port: expected a number from 1 to 65535, got 0; see hap2mqtt pair --help")
        #expect(
            failure("pair --host h --port 65536 --code 1")
                == "--port: expected a number from 1 to 65535, got 65536; see hap2mqtt pair --help")
        #expect(
            failure("pair --host h --port http --code 1")
                == #"--port: expected a number from 1 to 65535, got "http"; see hap2mqtt pair --help"#)
        #expect(failure("pair --host= --port 1 --code 1") == "--host: must not be empty; see hap2mqtt pair --help")
        #expect(failure("pair --host h --port 1 --code=") == "--code: must not be empty; see hap2mqtt pair --help")
        #expect(failure("unpair --") == "missing NAME|ID for unpair; see hap2mqtt unpair --help")
        #expect(
            failure("pair --host h --port 1 --code 1 --name Desk\nLamp")
                == "--name: must not contain line breaks or other control characters; see hap2mqtt pair --help")
        let invocation = try? parse("pair --host h --port 1 --code 031-45-154")
        #expect(invocation != nil)
        #expect(!String(describing: invocation).contains("031-45-154"))
        #expect(!String(reflecting: invocation).contains("031-45-154"))
    }
}
