import HomeModel
import Testing

@testable import hap2mqtt

@Suite("What main does with its arguments and environment")
struct StartupTests {
    private func decide(_ arguments: [String], environment: [String: String] = [:]) throws -> Startup {
        let files = try TemporaryFiles()
        defer { files.remove() }
        return Startup.decide(
            arguments: arguments, environment: environment, defaultConfigurationPath: files.path + "/none.yaml")
    }

    @Test("--version and --help print to standard output and exit 0")
    func versionAndHelp() throws {
        #expect(
            try decide(["--version"])
                == .finish(status: 0, output: "hap2mqtt \(Hap2mqtt.version) (commit \(Hap2mqtt.commit))\n", error: ""))
        #expect(try decide(["--help"]) == .finish(status: 0, output: HelpText.overview, error: ""))
        #expect(
            try decide(["pair", "-h"]) == .finish(status: 0, output: HelpText.forCommand(named: "pair"), error: ""))
    }

    @Test("usage and configuration errors are one line on standard error and exit 2")
    func errors() throws {
        #expect(
            try decide(["pair", "--prot", "1"])
                == .finish(
                    status: 2, output: "", error: "hap2mqtt: unknown option --prot for pair; see hap2mqtt pair --help\n"
                ))
        #expect(
            try decide(["--config", "/nonexistent/hap2mqtt.yaml", "run"])
                == .finish(
                    status: 2, output: "", error: "hap2mqtt: /nonexistent/hap2mqtt.yaml: configuration file not found\n"
                ))
        #expect(
            try decide(["run"], environment: ["HAP2MQTT_MQTT_QOS": "3"])
                == .finish(
                    status: 2, output: "",
                    error: "hap2mqtt: environment variable HAP2MQTT_MQTT_QOS: mqtt.qos: expected 0, 1 or 2, got \"3\"\n"
                ))
    }

    @Test("a command runs with the configuration, the flag's log level over the file's, and the warnings")
    func command() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let path = try files.write("log_level: warning\nhome:\n  name: Cottage\n", to: "c.yaml")
        guard
            case .command(let context) = Startup.decide(
                arguments: ["accessories", "--config", path], environment: ["HAP2MQTT_NOPE": "1"])
        else {
            Issue.record("accessories did not become a command")
            return
        }
        #expect(context.command == Command(AccessoriesCommand()))
        #expect(context.configurationFile == path && context.configuration.home.name == "Cottage")
        #expect(context.logLevel == .warning)
        #expect(context.warnings == ["environment variable HAP2MQTT_NOPE is not a hap2mqtt setting and is ignored"])
        #expect(context.notices.isEmpty, "a file was read")
        guard
            case .command(let flagged) = Startup.decide(
                arguments: ["--log-level", "trace", "accessories", "--config", path], environment: [:])
        else {
            Issue.record("accessories did not become a command")
            return
        }
        #expect(flagged.logLevel == .trace)
    }

    @Test("without a configuration file the defaults apply")
    func defaults() throws {
        guard case .command(let context) = try decide(["run"]) else {
            Issue.record("run did not become a command")
            return
        }
        #expect(context.configuration == Configuration() && context.configurationFile == nil)
        #expect(context.logLevel == .info)
        #expect(context.notices.count == 1)
        #expect(context.notices.first?.hasPrefix("no configuration file at ") == true)
        #expect(
            context.notices.first?.hasSuffix("none.yaml; using the defaults (see Config/hap2mqtt.example.yaml)") == true
        )
        guard case .command(let discover) = try decide(["discover"]) else {
            Issue.record("discover did not become a command")
            return
        }
        #expect(discover.notices.isEmpty, "discover reads no setting")
    }
}
