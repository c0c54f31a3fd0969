import Foundation
import HAP2MQTTTesting
import Testing

/// `scripts/lib/build-commit`, which `Plugins/BuildCommit` runs before every build to give
/// `hap2mqtt --version` its commit, in throwaway git repositories.
@Suite("The commit a build records")
struct BuildCommitTests {
    static let script = Repository.file("scripts/lib/build-commit").path

    /// Runs the script with `arguments`; `commit` sets HAP2MQTT_COMMIT.
    static func run(_ arguments: [String], commit: String? = nil) async throws -> String {
        var arguments = arguments
        if let commit {
            arguments = ["HAP2MQTT_COMMIT=\(commit)", script] + arguments
        } else {
            arguments = ["-u", "HAP2MQTT_COMMIT", script] + arguments
        }
        return try await ExternalTool.run("env", arguments)
    }

    static func git(_ directory: TemporaryFiles, _ arguments: [String]) async throws -> String {
        try await ExternalTool.run(
            "git", ["-C", directory.path, "-c", "user.name=t", "-c", "user.email=t@t"] + arguments)
    }

    @Test("the HEAD of the source tree's own repository, -dirty while a tracked file differs")
    func fromGit() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        _ = try await Self.git(files, ["init", "-q"])
        try files.write("a\n", to: "Package.swift")
        _ = try await Self.git(files, ["add", "Package.swift"])
        _ = try await Self.git(files, ["commit", "-q", "-m", "one"])
        let head = try await Self.git(files, ["rev-parse", "--short=12", "HEAD"])
        #expect(try await Self.run(["--print", files.path]) == head)
        try files.write("x\n", to: "untracked.txt")
        #expect(try await Self.run(["--print", files.path]) == head, "an untracked file is not a change")
        try files.write("b\n", to: "Package.swift")
        #expect(try await Self.run(["--print", files.path]) == head.dropLast() + "-dirty\n")

        try FileManager.default.createDirectory(atPath: files.path + "/inner", withIntermediateDirectories: true)
        #expect(
            try await Self.run(["--print", files.path + "/inner"]) == "unknown\n", "a tree inside another repository")
    }

    @Test("HAP2MQTT_COMMIT wins, cut to what a Swift string holds as it is; outside git it is unknown")
    func fromEnvironment() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        #expect(try await Self.run(["--print", files.path]) == "unknown\n")
        #expect(try await Self.run(["--print", files.path], commit: "0123456789ab") == "0123456789ab\n")
        #expect(try await Self.run(["--print", files.path], commit: #"ab"c\d e"#) == "abcde\n")
        #expect(try await Self.run(["--print", files.path], commit: #"""#) == "unknown\n")
    }

    @Test("the Swift file is rewritten only when the commit changed, so an unchanged tree recompiles nothing")
    func swiftFile() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let file = files.path + "/generated/BuildCommit.swift"
        _ = try await Self.run([files.path, file], commit: "0123456789ab")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("\nlet buildCommit = \"0123456789ab\"\n"))
        let past = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: file)
        _ = try await Self.run([files.path, file], commit: "0123456789ab")
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date == past)
        _ = try await Self.run([files.path, file], commit: "ba9876543210")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasSuffix("\nlet buildCommit = \"ba9876543210\"\n"))
    }
}
