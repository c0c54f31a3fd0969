internal import Foundation
import HomeStore
import JSON
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
        let last = parts.health.inboundReport.reported
        guard now.shed > last.shed || now.collapsed > last.collapsed else { return }
        if !force, let at = parts.health.inboundReport.reportedAt,
            ContinuousClock.now - at < configuration.healthInterval
        {
            return
        }
        parts.health.inboundReport = InboundReport(reported: now, reportedAt: .now)
        let shed = now.shed - last.shed
        let collapsed = now.collapsed - last.collapsed
        if shed > 0 {
            logger.warning(
                "dropped \(shed) commands and replaced \(collapsed) by newer ones on the same topic since the last report (\(now.shed) dropped in all): commands arrived faster than they could be carried out"
            )
        } else {
            logger.info(
                "replaced \(collapsed) commands by newer ones on the same topic before they were carried out (\(now.collapsed) in all)"
            )
        }
    }

    /// `bridge/health`, retained: the gateway's uptime (s), resident memory (bytes), the MQTT messages
    /// received and sent (and the commands collapsed, shed or too large), and per accessory server its
    /// connection and counts, why it is offline and what it learned of it (docs/DESIGN.md "Topics").
    func publishHealth() async {
        parts.health.healthServerIDs = await store.providerIDs
        outbox.retain(topics.bridgeHealth, await healthJSON(), qos: .atLeastOnce)
    }

    /// Publishes `bridge/health` again when the accessory servers are no longer those it lists (a pair or
    /// an unpair), so that the retained message never names a server that is gone for a whole interval.
    func publishHealthIfServersChanged() async {
        guard isReady, await store.providerIDs != parts.health.healthServerIDs else { return }
        await publishHealth()
    }

    /// The JSON object of `bridge/health` now.
    func healthJSON() async -> String {
        let servers = await store.providerStatistics()
        let counts = mqtt.inboundStatistics
        let uptime = Int64((ContinuousClock.now - parts.health.startedAt).components.seconds)
        let rss = ProcessMemory.residentBytes().map { JSONValue.int(Int64($0)) } ?? .null
        let health: JSONObject = [
            "uptime": .int(uptime), "memory": .object(["rss": rss]),
            "mqtt": .object([
                "received": .int(Int64(counts.received)), "sent": .int(Int64(outbox.sent)),
                "collapsed": .int(Int64(counts.collapsed)),
                "shed": .int(Int64(counts.shed)), "oversized": .int(Int64(counts.oversized)),
            ]),
            "accessory_servers": .array(servers.map(Self.serverJSON)),
        ]
        return JSONValue.object(health).description
    }

    /// One accessory server's entry of `bridge/health`; `last_event` in ISO 8601 (UTC).
    private static func serverJSON(_ server: ProviderStatistics) -> JSONValue {
        .object([
            "id": .string(server.providerID), "connected": server.diagnostics.connected.map(JSONValue.bool) ?? .null,
            "reachable": .bool(server.reachable), "address": server.diagnostics.address.map(JSONValue.string) ?? .null,
            "accessories": .int(Int64(server.accessories)),
            "last_event": server.lastEvent.map { JSONValue.string(UTCTimestamp.string($0, milliseconds: false)) }
                ?? .null,
            "reconnects": .int(Int64(server.diagnostics.reconnects)), "reads": .int(Int64(server.reads)),
            "writes": .int(Int64(server.writes)), "failed_writes": .int(Int64(server.failedWrites)),
            "events": .int(Int64(server.events)),
            "offline_reason": server.diagnostics.offlineReason.map { .string($0.rawValue) } ?? .null,
            "profile": server.diagnostics.profile.map(Self.profileJSON) ?? .null,
        ])
    }

    /// What a provider learned of its accessory server (docs/DESIGN.md "Availability and recovery"):
    /// `{"polled_instead_of_events":["2.10"],"read_batch_limit":4,"idle_limit":20.5,"keepalive":10.2}`,
    /// durations in seconds, a limit never learned `null`.
    private static func profileJSON(_ profile: LearnedProfile) -> JSONValue {
        .object([
            "polled_instead_of_events": .array(profile.polledInsteadOfEvents.map(JSONValue.string)),
            "read_batch_limit": profile.readBatchLimit.map { .int(Int64($0)) } ?? .null,
            "idle_limit": profile.idleLimit.map { .double(($0.inSeconds * 10).rounded() / 10) } ?? .null,
            "keepalive": .double((profile.keepalive.inSeconds * 10).rounded() / 10),
        ])
    }

    /// Whether the gateway is healthy: it has published the home and the broker is connected
    /// (`bridge/request/health_check`, as `hap2mqtt healthcheck` judges).
    var isHealthy: Bool { hasPublishedHome && !isStopped && mqtt.isConnected }

    /// Every `healthInterval`: the inbound counts to the log when they grew; and `bridge/health` when
    /// `bridgeHealthInterval` has passed since it was last published.
    func followHealth() async {
        var published = ContinuousClock.now
        while !Task.isCancelled, !isStopped {
            let step = min(configuration.healthInterval, configuration.bridgeHealthInterval)
            try? await Task.sleep(for: step)
            guard !Task.isCancelled, !isStopped else { return }
            noteInbound(force: true)
            if ContinuousClock.now - published >= configuration.bridgeHealthInterval {
                published = .now
                await publishHealth()
            }
            flush()
        }
    }
}
