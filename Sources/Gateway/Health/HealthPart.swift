/// The health part's state (docs/ARCHITECTURE.md "The Gateway's parts"): `bridge/health`, the inbound
/// report in the log, and `bridge/logging` (`Health/`).
struct HealthPart {
    /// The log lines to publish on `bridge/logging` (`Gateway+Logging.swift`).
    let logging: BridgeLogging?
    /// The MQTT client's inbound counts last logged.
    var inboundReport = Gateway.InboundReport()
    /// When the gateway was made, for `bridge/health`.
    let startedAt = ContinuousClock.now
    /// The accessory servers the retained `bridge/health` lists; a pair or unpair republishes it.
    var healthServerIDs: [String] = []
}
