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

/// Where the part's own code (the Gateway's extensions in its folder) reaches its state.
extension Gateway {
    /// The log lines to publish on `bridge/logging`.
    var logging: BridgeLogging? { parts.health.logging }

    /// The MQTT client's inbound counts last logged.
    var inboundReport: InboundReport {
        get { parts.health.inboundReport }
        _modify { yield &parts.health.inboundReport }
    }

    /// When the gateway was made.
    var startedAt: ContinuousClock.Instant { parts.health.startedAt }

    /// The accessory servers `bridge/health` lists.
    var healthServerIDs: [String] {
        get { parts.health.healthServerIDs }
        _modify { yield &parts.health.healthServerIDs }
    }
}
