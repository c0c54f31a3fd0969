import HomeStore
import SystemSupport

/// Why the pairing store could not read or write a file. Prints as one line naming the file; never shows
/// the file's contents.
public enum PairingStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read or written (permissions, disk full, …).
    case io(file: String, reason: String)
    /// The file exists but is not a valid identity or pairing; it is left as it is.
    case corruptFile(file: String, reason: String)
    /// A new controller identity could not be made.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .io(let file, let reason):
            return "\(file): \(reason)"
        case .corruptFile(let file, let reason):
            return "\(file) is damaged (\(reason)); it was left as it is: restore it from a backup or move it away"
        case .crypto(let error):
            return "cannot create the controller identity: \(error)"
        }
    }

    /// The name of the file the error is about (`pairing-AA-BB-CC-DD-EE-FF.json`); nil for `.crypto`.
    public var fileName: String? {
        switch self {
        case .io(let file, _), .corruptFile(let file, _): return file.split(separator: "/").last.map(String.init)
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
