import HomeStore
import SystemSupport

/// Why the pairing store could not read or write a file. Prints as one line naming the file; never shows
/// the file's contents.
public enum PairingStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read or written (permissions, disk full, …).
    case io(file: String, reason: String)
    /// The file exists but is not a valid identity or pairing; it is left as it is.
    case corruptFile(file: String, reason: String)
    /// `controller.json` (`file`) exists but cannot be read as an identity (`reason`): damaged, not a
    /// file, unreadable. It is left as it is; the pairings need it.
    case identityUnreadable(file: String, reason: String)
    /// `controller.json` (`file`) is missing (or a link to nothing) while `pairings` pairing files, made
    /// with it, exist: a new identity would leave them unusable.
    case identityMissing(file: String, pairings: Int)
    /// A new controller identity could not be made.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .io(let file, let reason):
            return "\(file): \(reason)"
        case .corruptFile(let file, let reason):
            return "\(file) is damaged (\(reason)); it was left as it is: restore it from a backup or move it away"
        case .identityUnreadable(let file, let reason):
            return "cannot load this controller's identity from \(file) (\(reason)); it was left as it is: "
                + "restore controller.json from a backup (a running gateway picks it up within seconds)"
        case .identityMissing(let file, let pairings):
            return "\(file) is missing, but the state directory holds \(pairings) pairing "
                + (pairings == 1 ? "file" : "files") + " made with it, which no new identity can use: "
                + "restore controller.json from a backup (a running gateway picks it up within seconds); "
                + "or, to start over, remove the pairing files and reset the accessories"
        case .crypto(let error):
            return "cannot create the controller identity: \(error)"
        }
    }

    /// The name of the file the error is about (`pairing-AA-BB-CC-DD-EE-FF.json`); nil for `.crypto`.
    public var fileName: String? {
        switch self {
        case .io(let file, _), .corruptFile(let file, _), .identityUnreadable(let file, _),
            .identityMissing(let file, _):
            return file.split(separator: "/").last.map(String.init)
        case .crypto: return nil
        }
    }

    /// The store's error for a state-directory failure.
    init(_ error: StateDirectoryError) {
        switch error {
        case .io(let path, let reason): self = .io(file: path, reason: reason)
        }
    }
}
