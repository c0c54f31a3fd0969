import Foundation
import HAPController
import JSON
import SystemSupport

extension RestoreCommand {
    /// Reads and opens the archive, then writes its files into the state directory while holding the
    /// directory's lock (a running `hap2mqtt run` would overwrite them); returns one line per pairing.
    /// - Throws: `CommandFailure` with one line when the archive cannot be read or opened, is damaged, cut
    ///   short or newer, the passphrase is wrong, or the state directory is in use or holds other pairings.
    ///   The state directory is then left as it was.
    func run(_ context: CommandContext) throws(CommandFailure) -> String {
        let bytes: [UInt8]
        do {
            bytes = try SystemCall.readFile(
                atPath: from, maximumSize: BackupArchive.headerLength + BackupArchive.maximumPayload + 16)
        } catch {
            throw CommandFailure(message: "cannot restore from \(from): cannot read it: \(error.reason)")
        }
        // The header is checked before the passphrase is asked for: a file that is no archive, or a newer
        // one, is refused without typing anything.
        do {
            try BackupArchive.check(bytes)
        } catch {
            throw CommandFailure(message: "cannot restore from \(from): \(error)")
        }
        let secret = try PassphraseReader.read(passphrase, confirm: false)
        let backup: StateBackup
        do {
            backup = try StateBackup(payload: try BackupArchive.open(bytes, passphrase: secret))
        } catch {
            throw CommandFailure(message: "cannot restore from \(from): \(error)")
        }
        let directory = StateDirectory(path: context.configuration.homekit.stateDirectory)
        do {
            var lock: StateDirectoryLock?
            if FileManager.default.fileExists(atPath: directory.path) { lock = try StateDirectoryLock(directory) }
            try withExtendedLifetime(lock) { () throws(BackupError) in try backup.restore(into: directory) }
        } catch {
            throw CommandFailure(message: "cannot restore from \(from): \(error)")
        }
        var lines = backup.pairings.map { pairing in
            "restored \(pairing.displayName.jsonQuoted) (\(pairing.accessoryPairingID)) at \(pairing.host):\(pairing.port)"
        }
        let count = backup.pairings.count == 1 ? "1 pairing" : "\(backup.pairings.count) pairings"
        lines.append(
            "restored the controller identity and \(count) into \(directory.path) (backed up \(backup.created) by "
                + "\(backup.createdBy)); start hap2mqtt run: every accessory comes online without pairing again")
        return lines.joined(separator: "\n") + "\n"
    }

    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try run(context) }
    }
}
