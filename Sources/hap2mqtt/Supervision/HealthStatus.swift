import Foundation
import JSON
import SystemSupport

/// What a running `hap2mqtt run` last said about itself, in `health.json` in its state directory: the
/// file `hap2mqtt healthcheck` (the Docker image's `HEALTHCHECK`) reads. `HealthMonitor` writes it when
/// the state changes and at least every `HealthStatus.refreshInterval`, so an old file means a gateway
/// that no longer runs or hangs.
///
/// `{"state":"running","broker_connected":true,"home_synced":true,"updated":"2026-12-01T20:00:00Z"}`
struct HealthStatus: Sendable, Hashable {
    /// Where the gateway is in its life.
    enum State: String, Sendable {
        /// Started; not yet connected and synced for the first time.
        case starting
        /// Connected and synced at least once (it may have lost the broker since: see the flags).
        case running
        /// A clean stop has begun or ended.
        case stopped
    }

    var state: State
    /// Whether the MQTT client is connected to the broker now.
    var brokerConnected: Bool
    /// Whether the home has synced and the gateway has published it (`bridge/state` online).
    var homeSynced: Bool
    /// When the gateway wrote this (its wall clock), to the second.
    var updated: Date

    /// The file's name in the state directory.
    static let fileName = "health.json"
    /// The longest time between two writes of a running gateway.
    static let refreshInterval = Duration.seconds(15)
    /// A file older than this is from a gateway that stopped without saying so, or hangs.
    static let maximumAge: TimeInterval = 60
    /// How far ahead of the reader's clock the file's time may be, in seconds.
    static let maximumClockSkew: TimeInterval = 5

    /// The file's text: the members sorted by name, `updated` in ISO 8601 UTC to the second.
    func encoded() -> Data {
        let object: JSONValue = [
            "state": .string(state.rawValue),
            "broker_connected": .bool(brokerConnected),
            "home_synced": .bool(homeSynced),
            "updated": .string(UTCTimestamp.string(updated, milliseconds: false)),
        ]
        return Data(object.encoded(sortingKeys: true))
    }

    /// Reads the file's text (only `hap2mqtt healthcheck` does: Foundation's ISO 8601 parser uses ICU,
    /// which `UTCTimestamp` keeps out of `run`).
    /// - Throws: `JSONError` when it is not JSON, `JSONFieldError` when it is not a health file.
    static func decode(_ data: Data) throws -> HealthStatus {
        let fields = try JSONFields(JSONValue(parsing: data))
        guard let state = State(rawValue: try fields.string("state")) else {
            throw JSONFieldError.invalid("state", reason: "not starting, running or stopped")
        }
        guard let updated = try? Date.ISO8601FormatStyle().parse(try fields.string("updated")) else {
            throw JSONFieldError.invalid("updated", reason: "not an ISO 8601 time")
        }
        return HealthStatus(
            state: state, brokerConnected: try fields.bool("broker_connected"),
            homeSynced: try fields.bool("home_synced"), updated: updated)
    }

    /// Whether the gateway that wrote this is healthy at `now`, and a line that says why: healthy when it
    /// runs, is connected to the broker, has synced the home, and wrote the file within `maximumAge`
    /// (and not more than `maximumClockSkew` ahead of `now`).
    func verdict(at now: Date) -> (healthy: Bool, reason: String) {
        let age = now.timeIntervalSince(updated)
        if state == .stopped { return (false, "hap2mqtt run has stopped") }
        if age > Self.maximumAge {
            return (false, "hap2mqtt run last wrote its health \(Int(age)) s ago: it no longer runs, or hangs")
        }
        // A time ahead of the clock is no proof of life: a file copied or written by hand, or a clock set
        // back. A few seconds are allowed for clocks that differ (a container reading the host's file).
        if age < -Self.maximumClockSkew {
            return (
                false,
                "hap2mqtt run's health is dated \(Int(-age)) s in the future: the file was not written by a running gateway, or the clock moved back"
            )
        }
        return (brokerConnected && homeSynced, summary)
    }

    /// The two flags in words, as `hap2mqtt healthcheck` prints them and `systemctl status` shows them.
    var summary: String {
        switch (brokerConnected, homeSynced) {
        case (true, true): return "connected to the MQTT broker, home synced"
        case (false, true): return "not connected to the MQTT broker (reconnecting)"
        case (true, false): return "connected to the MQTT broker; the home has not synced yet"
        case (false, false): return "not connected to the MQTT broker yet; the home has not synced"
        }
    }
}
