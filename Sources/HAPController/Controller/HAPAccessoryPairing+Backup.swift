public import HomeStore

extension HAPAccessoryPairing {
    /// The shortest passphrase a backup takes, as `hap2mqtt backup` asks.
    public static let minimumPassphraseLength = 8

    /// The state directory's backup (`StateBackup`), sealed with `passphrase` (`BackupArchive`: scrypt and
    /// ChaCha20-Poly1305), for `bridge/request/backup`; the same archive `hap2mqtt backup` writes.
    /// - Throws: `ManagementError.invalidRequest` for a passphrase under 8 bytes; `.failed` with the
    ///   backup's own line when there is nothing to back up or a file cannot be read.
    public func backup(passphrase: [UInt8]) async throws(ManagementError) -> [UInt8] {
        guard passphrase.count >= Self.minimumPassphraseLength else {
            throw .invalidRequest(
                BackupError.weakPassphrase(reason: "has fewer than \(Self.minimumPassphraseLength) characters")
                    .description)
        }
        do throws(BackupError) {
            let backup = try StateBackup.collect(from: controller.store.directory, createdBy: backupMaker)
            return try BackupArchive.seal(backup.payload, passphrase: passphrase)
        } catch {
            throw .failed("cannot back up: \(error)")
        }
    }
}
