/// A state-directory file could not be read or written.
public enum StateDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .io(let path, let reason): return "\(path): \(reason)"
        }
    }
}
