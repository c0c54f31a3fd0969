/// Why a backup could not be made, opened or restored. Prints as one line that says what to do; never
/// shows a key, a passphrase or a file's content.
public enum BackupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not start as a backup of hap2mqtt does.
    case notABackup
    /// The file ends before the archive does: `actual` of `expected` bytes.
    case truncated(actual: Int, expected: Int)
    /// The archive is longer than its header says, its header holds impossible values, or its content does
    /// not decrypt or read (`reason`).
    case damaged(reason: String)
    /// The archive was written in format `version`, newer than this hap2mqtt reads (`supported`).
    case newerFormat(version: Int, supported: Int)
    /// The passphrase does not open the archive.
    case wrongPassphrase
    /// A passphrase that is not allowed for a new backup (`reason`).
    case weakPassphrase(reason: String)
    /// The state directory has nothing to back up: no controller identity.
    case nothingToBackUp(directory: String)
    /// The state directory cannot be read for the backup (`reason`, naming the file).
    case unreadable(reason: String)
    /// The target state directory holds pairings or a controller identity the archive does not: a restore
    /// would orphan them (`reason` says which).
    case stateDirectoryInUse(directory: String, reason: String)
    /// A file could not be written; everything written before it was taken back.
    case io(reason: String)
    /// Randomness or libcrypto failed.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .notABackup:
            return "it is not a backup of hap2mqtt (it does not start with \"hap2mqtt backup\")"
        case .truncated(let actual, let expected):
            return "the archive is cut short: \(actual) of its \(expected) bytes are there; copy it again"
        case .damaged(let reason):
            return "the archive is damaged (\(reason)); use another copy"
        case .newerFormat(let version, let supported):
            return
                "the archive is in format \(version), written by a newer hap2mqtt; this one reads format \(supported) and older: upgrade hap2mqtt to restore it"
        case .wrongPassphrase:
            return "wrong passphrase: it does not open this archive"
        case .weakPassphrase(let reason):
            return "the passphrase \(reason)"
        case .nothingToBackUp(let directory):
            return
                "nothing to back up: \(directory) holds no controller identity (controller.json); pair an accessory first"
        case .unreadable(let reason):
            return "cannot read the state directory: \(reason)"
        case .stateDirectoryInUse(let directory, let reason):
            return
                "\(directory) \(reason), which the archive does not: restoring over it would orphan them; restore into an empty state directory"
        case .io(let reason):
            return "cannot write the state directory: \(reason); nothing was changed"
        case .crypto(let error):
            return "\(error)"
        }
    }
}
