import Foundation
import HAP2MQTTTesting
import Testing

@testable import hap2mqtt

/// Runs the built `hap2mqtt` binary, which `swift build` and `swift test` put next to the test bundle.
@Suite("The hap2mqtt executable")
struct ExecutableTests {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs the binary with `arguments` and `environment` (added to a copy of this process's environment
    /// without its `HAP2MQTT_*` variables) in `directory` (default: this process's), stopping it after
    /// 60 seconds. Waits without blocking a thread: the tests share a pool of as many threads as cores,
    /// and two blocked waits stalled every other test for seconds. `input` is standard input (a file
    /// holding it); without it standard input is empty.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil, input: String? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = try GatewayProcess.binary()
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAP2MQTT_") }
            .merging(AvahiNamespace.gatewayEnvironment) { _, new in new }
            .merging(environment) { _, new in new }
        let files = try TemporaryFiles()
        defer { files.remove() }
        let outputPath = try files.write("", to: "stdout")
        let errorPath = try files.write("", to: "stderr")
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardOutput = output
        process.standardError = error
        if let input {
            process.standardInput = try FileHandle(
                forReadingFrom: URL(fileURLWithPath: try files.write(input, to: "stdin")))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        try? output.close()
        try? error.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                Issue.record("hap2mqtt \(arguments.joined(separator: " ")) did not exit within 60 seconds")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return Result(
            status: process.terminationStatus,
            output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    @Test("--version prints the version and the commit of this checkout it was built from, and exits 0")
    func version() async throws {
        let result = try await Self.run(["--version"])
        #expect(result.status == 0)
        #expect(result.output == "hap2mqtt \(Hap2mqtt.version) (commit \(Hap2mqtt.commit))\n")
        #expect(result.error.isEmpty)
        // HEAD may have moved since the build; the commit must still be one of this repository's.
        let hash = String(Hap2mqtt.commit.prefix { $0 != "-" })
        #expect(hash.count == 12 && hash.allSatisfy(\.isHexDigit), "\(Hap2mqtt.commit)")
        #expect(["", "-dirty"].contains(Hap2mqtt.commit.dropFirst(12)))
        let repository = Repository.root.path
        _ = try await ExternalTool.run("git", ["-C", repository, "cat-file", "-e", "\(hash)^{commit}"])
    }

    @Test("a usage error is one line on standard error and exit status 2")
    func usageError() async throws {
        let result = try await Self.run(["pair", "--prot", "1"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error == "hap2mqtt: unknown option --prot for pair; see hap2mqtt pair --help\n")
    }

    @Test("a bad configuration is one line naming the file and key, and exit status 2")
    func configurationError() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let path = try files.write("homekit:\n  poll_interval: soon\n", to: "c.yaml")
        let result = try await Self.run(["run", "--config", path])
        #expect(result.status == 2)
        #expect(
            result.error
                == "hap2mqtt: \(path):2:18: homekit.poll_interval: expected a number of seconds, got \"soon\"\n")
    }

    @Test("run refuses a web page token shorter than 16 characters, or in a file every user may read, with one line")
    func weakWebPageToken() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let short = try files.write("frontend:\n  auth_token: guessable\n", to: "short.yaml")
        let refused = try await Self.run(["run", "--config", short])
        #expect(refused.status == 2)
        #expect(
            refused.error
                == "hap2mqtt: \(short): frontend.auth_token: the token has 9 characters; use at least 16 (for example the output of `openssl rand -hex 16`)\n"
        )
        let token = try files.write("long-enough-but-readable-by-all\n", to: "token")
        chmod(token, 0o644)
        let open = try files.write("frontend:\n  auth_token_file: \(token)\n", to: "open.yaml")
        let readable = try await Self.run(["run", "--config", open])
        #expect(readable.status == 2)
        #expect(readable.error.split(separator: "\n").count == 1)
        #expect(readable.error.contains("can be read by every user of this machine (mode 644); chmod o-r"))
        #expect(!readable.error.contains("long-enough-but-readable-by-all"))
    }

    @Test("without --config and without Config/hap2mqtt.yaml the defaults apply, and one notice line says so")
    func missingDefaultConfiguration() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let empty = "no paired accessories: pair one with hap2mqtt pair --host H --port P\n"
        let defaults = try await Self.run(["accessories"], directory: files.path)
        #expect(defaults.status == 0)
        #expect(defaults.output == empty)
        let lines = defaults.error.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(lines)")
        let pattern = #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z notice +hap2mqtt: (.*)/#
        let match = try #require(lines.first?.wholeMatch(of: pattern), "not a notice line: \(defaults.error)")
        #expect(
            match.1
                == "no configuration file at Config/hap2mqtt.yaml; using the defaults (see Config/hap2mqtt.example.yaml)"
        )

        try FileManager.default.createDirectory(atPath: files.path + "/Config", withIntermediateDirectories: true)
        try files.write("homekit:\n  state_dir: \(files.path)/data\n", to: "Config/hap2mqtt.yaml")
        let configured = try await Self.run(["accessories"], directory: files.path)
        #expect(configured.status == 0)
        #expect(configured.output == empty)
        #expect(configured.error.isEmpty, "the default file is read without a word")
    }

    @Test("log lines reach standard error: a warning about an unknown HAP2MQTT_ variable")
    func logLine() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let path = try files.write("homekit:\n  state_dir: \(files.path)/data\n", to: "c.yaml")
        let result = try await Self.run(["accessories", "--config", path], environment: ["HAP2MQTT_NOPE": "1"])
        let first = result.error.split(separator: "\n").first.map(String.init) ?? ""
        let pattern = #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warning hap2mqtt: (.*)/#
        let match = try #require(first.wholeMatch(of: pattern), "not a log line: \(first)")
        #expect(match.1 == "environment variable HAP2MQTT_NOPE is not a hap2mqtt setting and is ignored")
    }
}
