import Foundation
import HAP2MQTTTesting
import Testing

@testable import hap2mqtt

/// `hap2mqtt pair` takes the setup code from a file, from standard input, or from the terminal without
/// echo, so that it is not in `ps` while pairing runs; run as the built binary against a real HAP-python
/// accessory.
@Suite("The setup code of pair, without the command line")
struct SetupCodeInputTests {
    func configuration(_ files: TemporaryFiles) throws -> String {
        try files.write("homekit:\n  state_dir: \(files.path)/data\n", to: "hap2mqtt.yaml")
    }

    @Test("--code-file and --code - pair; both options, no code without a terminal, and an empty file are refused")
    func fileAndStandardInput() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        let pair = ["pair", "--host", "127.0.0.1", "--port", String(accessory.port), "--config", config]

        let both = try await ExecutableTests.run(pair + ["--code", "-", "--code-file", "x"])
        #expect(both.status == 2)
        #expect(
            both.error
                == "hap2mqtt: --code: conflicts with --code-file: give the setup code one way; see hap2mqtt pair --help\n"
        )
        let none = try await ExecutableTests.run(pair)
        #expect(none.status == 2)
        #expect(
            none.error
                == "hap2mqtt: no setup code: give --code-file PATH or --code - (standard input), or run pair in a terminal to type it\n"
        )
        let empty = try files.write("\n", to: "empty-code")
        let fromEmpty = try await ExecutableTests.run(pair + ["--code-file", empty])
        #expect(
            fromEmpty.error
                == "hap2mqtt: no setup code in --code-file \(empty): expected XXX-XX-XXX on the first line\n")
        let wrongFormat = try await ExecutableTests.run(pair + ["--code", "-"], input: "12-34\n")
        #expect(wrongFormat.status == 2)
        #expect(wrongFormat.error.hasPrefix("hap2mqtt: --code -: the setup code must be 8 digits"))
        #expect(!(try await accessory.status().paired))

        let codeFile = try files.write("\(accessory.setupCode)\n", to: "setup-code")
        let fromFile = try await ExecutableTests.run(pair + ["--code-file", codeFile, "--name", "Desk"])
        #expect(fromFile.status == 0, "\(fromFile.error)")
        #expect(fromFile.output.hasPrefix("paired with \"Desk\""))
        #expect(try await ExecutableTests.run(["unpair", "desk", "--config", config]).status == 0)

        let fromInput = try await ExecutableTests.run(
            pair + ["--code", "-", "--name", "Desk"], input: "  \(accessory.setupCode)\r\n")
        #expect(fromInput.status == 0, "\(fromInput.error)")
        #expect(fromInput.output.hasPrefix("paired with \"Desk\""))
        for text in [fromFile.output, fromFile.error, fromInput.output, fromInput.error] {
            #expect(!text.contains(accessory.setupCode))
        }
        await accessory.stop()
    }

    @Test("a code file or input without a line break in its first 256 bytes is refused, and read no further")
    func unboundedInput() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        // Nothing listens on port 1: every case must be refused before any connection.
        let pair = ["pair", "--host", "127.0.0.1", "--port", "1", "--config", config]
        let long = try files.write(String(repeating: "1", count: 300_000), to: "long-code")
        let fromLong = try await ExecutableTests.run(pair + ["--code-file", long])
        #expect(fromLong.status == 2)
        try #require(
            fromLong.error
                == "hap2mqtt: no setup code in --code-file \(long): its first 256 bytes hold no line break; "
                + "expected XXX-XX-XXX on the first line\n", "\(fromLong.error)")
        // An endless file: without the bound this read until memory ran out.
        let fromZero = try await ExecutableTests.run(pair + ["--code-file", "/dev/zero"])
        #expect(fromZero.status == 2)
        #expect(fromZero.error.hasPrefix("hap2mqtt: no setup code in --code-file /dev/zero: its first 256 bytes"))
        let fromInput = try await ExecutableTests.run(
            pair + ["--code", "-"], input: String(repeating: "1", count: 300))
        #expect(
            fromInput.error
                == "hap2mqtt: no setup code in standard input (--code -): its first 256 bytes hold no line break; "
                + "expected XXX-XX-XXX on the first line\n")
        let directory = try await ExecutableTests.run(pair + ["--code-file", files.path])
        #expect(directory.error == "hap2mqtt: --code-file: cannot read \(files.path): Is a directory\n")
    }

    @Test("in a terminal, pair asks for the code and does not echo it")
    func prompt() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        // A real pseudo-terminal: Python's pty module runs the binary on it, answers the prompt, and
        // reports everything the terminal showed.
        let script = try files.write(Self.terminal, to: "terminal.py")
        let report = try await ExternalTool.run(
            "python3",
            [
                script, accessory.setupCode, try GatewayProcess.binary().path, "pair", "--host", "127.0.0.1", "--port",
                String(accessory.port), "--name", "Desk", "--config", config,
            ])
        let lines = report.split(separator: "\n")
        #expect(lines.first == "status 0", "\(report)")
        #expect(report.contains("Setup code (XXX-XX-XXX, not shown): "))
        #expect(report.contains("paired with \"Desk\""))
        #expect(!report.contains(accessory.setupCode), "the terminal showed the code")
        #expect(try await accessory.status().paired)
        await accessory.stop()
    }

    /// argv: code, binary, arguments. Prints `status N`, then what the terminal showed.
    static let terminal = """
        import os, pty, select, sys, time
        code, argv = sys.argv[1].encode(), sys.argv[2:]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(argv[0], argv)
        shown, answered, deadline = b"", False, time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            shown += data
            if not answered and b"not shown): " in shown:
                os.write(fd, code + b"\\n")
                answered = True
        if not answered or time.monotonic() >= deadline:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        print("status", os.waitstatus_to_exitcode(status))
        print(shown.decode(errors="replace"))
        """
}
