import Gateway
import Web

extension LogFeed {
    /// The program's recent log lines for the web page: every line the program's log sink writes
    /// (`LogLineWriter.sink`) at `info` and above.
    static let program = LogFeed()
}

extension BridgeLogging {
    /// The program's log lines for `bridge/logging`: every record the program's log sink takes at
    /// `mqtt_log_level` and above (`LogLineWriter.sink`); `run`'s gateway publishes them.
    static let program = BridgeLogging()
}
