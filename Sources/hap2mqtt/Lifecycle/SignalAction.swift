import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a signal does to `hap2mqtt run` (docs/command-line.md "Signals"): SIGINT and SIGTERM stop it cleanly, SIGHUP
/// reloads the configuration where that is safe (a closed terminal sends SIGHUP too, and must not take
/// the gateway down), SIGUSR1 and SIGUSR2 are ignored with a log line (by default they would kill the
/// process at once, with only the last will to say so).
enum SignalAction: Sendable, Hashable {
    case stop
    case reload
    case ignore

    /// Every signal `run` handles, so that none of them kills it.
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2]

    /// The action for signal `number`, one of `handled`.
    init(signal number: Int32) {
        switch number {
        case SIGHUP: self = .reload
        case SIGUSR1, SIGUSR2: self = .ignore
        default: self = .stop
        }
    }

    /// `SIGHUP`, or the number for any other signal.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        case SIGUSR1: return "SIGUSR1"
        case SIGUSR2: return "SIGUSR2"
        default: return "signal \(number)"
        }
    }

    /// Follows `signals` until the first one that stops: that one is handed to `stop`; a reload runs
    /// `reload` (awaited, so that two SIGHUPs do not overlap), an ignored signal is logged at notice.
    static func follow(
        _ signals: AsyncStream<Int32>, stop: StopRequest, reload: @Sendable () async -> Void, logger: Logger
    ) async {
        for await number in signals {
            switch SignalAction(signal: number) {
            case .stop:
                stop.request(.signal(number))
                return
            case .reload:
                await reload()
            case .ignore:
                logger.notice(
                    "received \(name(number)); ignored (SIGINT and SIGTERM stop hap2mqtt, SIGHUP reloads its configuration)"
                )
            }
        }
    }
}
