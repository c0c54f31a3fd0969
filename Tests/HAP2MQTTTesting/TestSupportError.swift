/// Why a test helper could not do its job. Tests fail with it, never skip: a missing tool is a broken
/// test environment, and `scripts/test` installs every tool the tests need.
public enum TestSupportError: Error, Sendable, CustomStringConvertible {
    /// A program the tests need is not installed.
    case toolMissing(String)
    /// A program exited with a failure status; carries its output.
    case commandFailed(String)
    /// A process did not get ready (a broker not listening), with its log.
    case notReady(String)
    /// Something expected did not happen in time; says what was seen instead.
    case timedOut(String)
    /// A socket call failed.
    case socket(String)

    public var description: String {
        switch self {
        case .toolMissing(let text): return text
        case .commandFailed(let text): return "command failed: \(text)"
        case .notReady(let text): return "not ready: \(text)"
        case .timedOut(let text): return "timed out: \(text)"
        case .socket(let text): return "socket error: \(text)"
        }
    }
}
