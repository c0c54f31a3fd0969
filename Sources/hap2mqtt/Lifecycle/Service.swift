/// One part that `hap2mqtt run` starts and stops (the MQTT client, the home store with its providers,
/// the gateway, the pairing watcher, …), as `ServiceGroup` drives it.
///
/// - `start` brings it up and returns when it is up; it may wait (the MQTT client waits for the broker)
///   and must then end soon when its task is cancelled, which is how a stop request reaches it.
/// - `run` is its work for as long as the program runs, if it has any; the group cancels it right
///   after `stop` returned.
/// - `stop` takes it down (the gateway publishes `bridge/state` offline); it is called once, only for a
///   service whose `start` succeeded, and must not wait on later services (they are stopped already).
struct Service: Sendable {
    /// The name in log lines and errors: `MQTT client`, `home store`.
    let name: String
    /// What `start` may wait for, as log lines say it: `the broker could be reached`; nil when it does
    /// not wait.
    let awaiting: String?
    let start: @Sendable () async throws(ServiceStartError) -> Void
    let run: (@Sendable () async -> Void)?
    let stop: @Sendable () async -> Void

    init(
        _ name: String, awaiting: String? = nil,
        start: @escaping @Sendable () async throws(ServiceStartError) -> Void = {},
        run: (@Sendable () async -> Void)? = nil,
        stop: @escaping @Sendable () async -> Void = {}
    ) {
        self.name = name
        self.awaiting = awaiting
        self.start = start
        self.run = run
        self.stop = stop
    }
}

/// A service could not start (not a stop request: that is no error).
struct ServiceStartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service's name.
    var service: String
    /// Why, with what the user can do about it.
    var reason: String

    var description: String { "cannot start the \(service): \(reason)" }
}
