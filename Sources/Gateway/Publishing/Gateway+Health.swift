import MQTT
import SystemSupport

/// `bridge/health` and the log lines about commands the MQTT client collapsed, shed or cut short
/// (docs/DESIGN.md "Hostile input"): a flood of commands is bounded in the client's queue, and this is
/// where a user sees that it happened and how much.
extension Gateway {
    /// What was last reported of the MQTT client's inbound counts.
    struct InboundReport: Sendable {
        var reported = MQTTInboundStatistics()
        var reportedAt: ContinuousClock.Instant?
    }

    /// Logs the commands shed or collapsed since the last line, at most once per `healthInterval`
    /// unless `force`; the first shedding is logged at once.
    func noteInbound(force: Bool = false) {
        let now = mqtt.inboundStatistics
        let last = inboundReport.reported
        guard now.shed > last.shed || now.collapsed > last.collapsed else { return }
        if !force, let at = inboundReport.reportedAt, ContinuousClock.now - at < configuration.healthInterval { return }
        inboundReport = InboundReport(reported: now, reportedAt: .now)
        let shed = now.shed - last.shed
        let collapsed = now.collapsed - last.collapsed
        if shed > 0 {
            logger.warning("dropped \(shed) commands and replaced \(collapsed) by newer ones on the same topic since the last report (\(now.shed) dropped in all): commands arrived faster than they could be carried out")
        } else {
            logger.info("replaced \(collapsed) commands by newer ones on the same topic before they were carried out (\(now.collapsed) in all)")
        }
    }

    /// `bridge/health`, retained: `{"uptime":<s>,"memory":{"rss":<bytes>},"mqtt":{"received":…,
    /// "collapsed":…,"shed":…,"oversized":…}}`.
    func publishHealth() {
        let counts = mqtt.inboundStatistics
        let uptime = Int((ContinuousClock.now - startedAt).components.seconds)
        let rss = ProcessMemory.residentBytes().map(String.init) ?? "null"
        let json = "{\"uptime\":\(uptime),\"memory\":{\"rss\":\(rss)},\"mqtt\":{\"received\":\(counts.received),"
            + "\"collapsed\":\(counts.collapsed),\"shed\":\(counts.shed),\"oversized\":\(counts.oversized)}}"
        outbox.retain(topics.bridgeHealth, json, qos: .atLeastOnce)
    }

    /// Every `healthInterval`: the inbound counts to the log when they grew, and `bridge/health`.
    func followHealth() async {
        while !Task.isCancelled, !isStopped {
            try? await Task.sleep(for: configuration.healthInterval)
            guard !Task.isCancelled, !isStopped else { return }
            noteInbound(force: true)
            publishHealth()
            flush()
        }
    }
}
