/// Why a scenario could not finish; printed as one line.
enum BenchmarkError: Error, CustomStringConvertible {
    /// A measuring client could not connect, subscribe or publish.
    case mqtt(String)
    /// Messages that were expected did not all arrive in time.
    case timedOut(String)
    /// The command line is wrong.
    case usage(String)
    /// A helper process failed.
    case process(String)

    var description: String {
        switch self {
        case .mqtt(let why): "MQTT: \(why)"
        case .timedOut(let why): "timed out: \(why)"
        case .usage(let why): why
        case .process(let why): why
        }
    }
}
