import Logging

/// The loggers the program hands to its parts, one label each; the label starts each of the part's log
/// lines (`mqtt: connected to …`). Libraries never make their own.
struct Loggers: Sendable {
    /// The program itself: start-up notices, the life cycle of `run`, the pairing watcher.
    var program: Logger
    /// The HAP controller and its accessory providers.
    var hap: Logger
    /// DNS-SD browsing for accessories (`discover`, `pair --id`, `run`).
    var discovery: Logger
    /// The MQTT client.
    var mqtt: Logger
    /// The home store.
    var homeStore: Logger
    /// The gateway (topics, commands, Home Assistant discovery).
    var gateway: Logger
    /// The web page.
    var web: Logger

    /// The program's loggers, writing to `sink`, or without one to `LogSystem`'s sink.
    init(sink: LogSink? = nil) {
        program = Logger(label: "hap2mqtt", sink: sink)
        hap = Logger(label: "hap", sink: sink)
        discovery = Logger(label: "discovery", sink: sink)
        mqtt = Logger(label: "mqtt", sink: sink)
        homeStore = Logger(label: "homestore", sink: sink)
        gateway = Logger(label: "gateway", sink: sink)
        web = Logger(label: "web", sink: sink)
    }
}
