import MQTT

/// The commands waiting for an accessory server that is busy with a slow command (a `/get`, a
/// `snapshot/get`, an `identify`), one lane per server, so that a silent accessory holds up only the
/// commands to its own server, in the order they came, and never a `/set` to another one.
///
/// A server has a lane while a task of the gateway works through it (`Gateway.runLane`); a command to a
/// server without one is handled at once, in the MQTT reader's step.
struct CommandLanes {
    /// A command admitted by `Gateway.handle(_:)`, waiting its turn.
    struct Pending: Sendable {
        let command: TopicScheme.Command
        let message: MQTTMessage
    }

    /// The waiting commands of each server that has a lane, oldest first.
    private var waiting: [String: [Pending]] = [:]

    /// Whether `server` has a lane: a command to it waits behind the one in progress.
    func isBusy(_ server: String) -> Bool { waiting[server] != nil }

    /// Opens the lane of `server`, for a command that starts now.
    mutating func open(_ server: String) { waiting[server] = waiting[server] ?? [] }

    /// Queues `pending` behind what `server` is doing.
    mutating func append(_ pending: Pending, to server: String) { waiting[server, default: []].append(pending) }

    /// The next command of `server`'s lane; nil closes the lane (nothing waits).
    mutating func next(for server: String) -> Pending? {
        guard var list = waiting[server], !list.isEmpty else {
            waiting[server] = nil
            return nil
        }
        let first = list.removeFirst()
        waiting[server] = list
        return first
    }

    /// Drops every waiting command (the gateway stops).
    mutating func removeAll() { waiting = [:] }
}
