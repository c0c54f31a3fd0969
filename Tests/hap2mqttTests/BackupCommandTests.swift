import Foundation
import Testing

@testable import hap2mqtt

@Suite("backup and restore on the command line")
struct BackupCommandTests {
    private func parse(_ line: String) throws -> Invocation {
        try CommandLineParser.parse(line.split(separator: " ").map(String.init))
    }

    @Test("--to and --from are required; the passphrase comes from a file, standard input or the terminal")
    func parsing() throws {
        #expect(
            try parse("backup --to home.bak --passphrase-file pass.txt")
                == Invocation(action: .command(Command(BackupCommand(to: "home.bak", passphrase: .file("pass.txt"))))))
        #expect(
            try parse("restore --from home.bak --passphrase-file -")
                == Invocation(action: .command(Command(RestoreCommand(from: "home.bak", passphrase: .standardInput)))))
        #expect(
            try parse("restore --from home.bak")
                == Invocation(action: .command(Command(RestoreCommand(from: "home.bak", passphrase: .prompt)))))
        #expect(throws: CommandLineError.self) { try parse("backup") }
        #expect(throws: CommandLineError.self) { try parse("restore --passphrase-file -") }
    }

    @Test("no option takes the passphrase itself: one on the command line would show in ps")
    func noPassphraseOption() {
        for line in ["backup --to a --passphrase secret", "restore --from a --passphrase secret"] {
            do {
                _ = try parse(line)
                Issue.record("\(line) parsed")
            } catch {
                #expect(!"\(error)".contains("secret"), "\(error)")
            }
        }
    }

    @Test("a passphrase file's first line, spaces kept; an empty or endless one refused with status 2")
    func passphraseFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hap2mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("passphrase")
        try Data(" two words \r\nsecond line\n".utf8).write(to: file)
        #expect(try PassphraseReader.read(.file(file.path), confirm: true) == Array(" two words ".utf8))
        try Data("\n".utf8).write(to: file)
        #expect(throws: CommandFailure(message: "no passphrase in \(file.path): its first line is empty", status: 2)) {
            try PassphraseReader.read(.file(file.path), confirm: false)
        }
        try Data(repeating: UInt8(ascii: "a"), count: 5000).write(to: file)
        #expect(throws: CommandFailure.self) { try PassphraseReader.read(.file(file.path), confirm: false) }
        #expect(throws: CommandFailure.self) { try PassphraseReader.checkStrength(Array("seven77".utf8)) }
        try PassphraseReader.checkStrength(Array("eight888".utf8))
    }
}
