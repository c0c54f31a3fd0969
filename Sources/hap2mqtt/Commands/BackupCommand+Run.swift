import Foundation
import HAPController
import JSON
import SystemSupport

extension BackupCommand {
    /// Collects the state directory's files, asks for the passphrase and writes the encrypted archive
    /// atomically with mode 0600; returns what it holds, for standard output.
    /// - Throws: `CommandFailure` when there is nothing to back up, a file cannot be read, the passphrase
    ///   is missing or too short, or the archive cannot be written.
    func run(_ context: CommandContext) throws(CommandFailure) -> String {
        let directory = StateDirectory(path: context.configuration.homekit.stateDirectory)
        let backup: StateBackup
        do {
            backup = try StateBackup.collect(from: directory, createdBy: "hap2mqtt \(Hap2mqtt.version)")
        } catch {
            throw CommandFailure(message: "cannot back up: \(error)")
        }
        let secret = try PassphraseReader.read(passphrase, confirm: true)
        try PassphraseReader.checkStrength(secret)
        let archive: [UInt8]
        do {
            archive = try BackupArchive.seal(backup.payload, passphrase: secret)
        } catch {
            throw CommandFailure(message: "cannot back up: \(error)")
        }
        let url = URL(fileURLWithPath: to)
        do {
            try StateDirectory(path: url.deletingLastPathComponent().path).write(
                Data(archive), to: url.lastPathComponent)
        } catch {
            throw CommandFailure(message: "cannot write the backup: \(error)")
        }
        let names = backup.pairings.map(\.displayName.jsonQuoted).joined(separator: ", ")
        let count = backup.pairings.count == 1 ? "1 pairing" : "\(backup.pairings.count) pairings"
        return "wrote \(to): the controller identity and \(count)"
            + (names.isEmpty ? "" : " (\(names))")
            + "; keep the passphrase safe: without it the archive cannot be opened\n"
    }

    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try run(context) }
    }
}
