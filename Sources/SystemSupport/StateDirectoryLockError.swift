/// Why `hap2mqtt run` could not take its state directory's lock (`StateDirectoryLock`).
public enum StateDirectoryLockError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another `hap2mqtt run` holds the lock, with its process id when the lock file names one.
    case inUse(directory: String, processID: Int32?)
    /// The lock file could not be opened or locked.
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .inUse(let directory, let processID):
            let holder = processID.map { "another hap2mqtt run (process \($0))" } ?? "another hap2mqtt run"
            return "\(directory) is in use by \(holder); stop it first, or give this one its own homekit.state_dir"
        case .io(let path, let reason): return "\(path): \(reason)"
        }
    }
}
