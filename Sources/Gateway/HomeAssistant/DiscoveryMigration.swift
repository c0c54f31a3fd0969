import JSON

/// Which discovery format the gateway publishes, and the move from one to the other by Home Assistant's
/// own protocol (its "Migration from single component to device-based discovery" and the rollback
/// there), so that Home Assistant keeps every entity id, unique id, device id and the history.
///
/// A migration is three steps, each done once the broker acknowledged all of its messages, and each
/// recorded in the state directory before it goes out, so that a start after an interruption (a restart,
/// the broker dropping) goes on from the step it was in rather than leaving both formats behind:
/// 1. `announce`: `{"migrate_discovery":true}` retained on every config topic of the old format: Home
///    Assistant unloads those entities and keeps their registry entries; nothing is published in either
///    format until the last step.
/// 2. `clear`: an empty retained message on every topic of the old format. Home Assistant's page has this
///    step last; but an empty config on the old topic of an entity already taken over by the new topic
///    is, to Home Assistant 2026.11, a conflicting discovery message, and it logs a warning for each.
///    Before the new configs, the entities are unloaded and an empty config changes nothing.
/// 3. `publish`: every config in the new format, under the same discovery ids: Home Assistant takes the
///    entities over with their registry entries; from here on everything is published in the new format
///    only.
struct DiscoveryMigration: Sendable, Hashable {
    /// A step of a migration.
    enum Step: String, Sendable, Hashable, CaseIterable {
        case announce, clear, publish
    }

    /// Settled in a format, or on the way from one to the other.
    enum State: Sendable, Hashable {
        case settled(DiscoveryFormat)
        case migrating(from: DiscoveryFormat, to: DiscoveryFormat, step: Step)
    }

    /// What a transition asks of the gateway, in order.
    enum Action: Sendable, Hashable {
        /// Write `record` to the state directory, before anything that follows goes out.
        case save
        /// Send the messages of the step (built from the home as it is then) and call `stepDone()` once
        /// the broker acknowledged them.
        case run(Step)
    }

    /// Why a migration request is refused; nothing changes then.
    enum Refusal: Error, Hashable, CustomStringConvertible {
        /// A migration is under way.
        case underWay(from: DiscoveryFormat, to: DiscoveryFormat, step: Step)
        /// The configuration asks for the other format: the next start would migrate back.
        case configured(DiscoveryFormat)

        var description: String {
            switch self {
            case .underWay(let from, let to, let step):
                return "a migration of the Home Assistant discovery configs from \(from) to \(to) is under way "
                    + "(step \(step)); ask again once bridge/info shows it done"
            case .configured(let format):
                return "homeassistant.discovery_format is \(format) in the configuration; change it there (a "
                    + "changed setting migrates at the next start or reload)"
            }
        }
    }

    private(set) var state: State
    /// The format the configuration asks for (`homeassistant.discovery_format`); nil when it names none.
    private(set) var asked: DiscoveryFormat?

    /// The state after a start, and what to do first: `recorded` is the state directory's record (nil
    /// when there is none), `isNewInstallation` whether the state directory held nothing of an earlier
    /// run. Without a record, an earlier installation published per entity (every release before this
    /// one did); a new one takes `asked`, else `device`. A recorded migration goes on from its step; a
    /// settled format other than `asked` starts one.
    static func starting(recorded: State?, isNewInstallation: Bool, asked: DiscoveryFormat?) -> (
        DiscoveryMigration, [Action]
    ) {
        guard let recorded else {
            if isNewInstallation {
                return (DiscoveryMigration(state: .settled(asked ?? .device), asked: asked), [.save])
            }
            var migration = DiscoveryMigration(state: .settled(.entity), asked: asked)
            let started = migration.startIfAsked()
            return (migration, started.isEmpty ? [.save] : started)
        }
        var migration = DiscoveryMigration(state: recorded, asked: asked)
        if case .migrating(_, _, let step) = recorded { return (migration, [.run(step)]) }
        let actions = migration.startIfAsked()
        return (migration, actions)
    }

    /// The format ordinary publishing uses now; nil while the old configs are announced and cleared,
    /// when nothing is published in either format.
    var publishingFormat: DiscoveryFormat? {
        switch state {
        case .settled(let format): format
        case .migrating(_, _, .announce), .migrating(_, _, .clear): nil
        case .migrating(_, let to, .publish): to
        }
    }

    /// Whether a migration is under way.
    var isMigrating: Bool {
        if case .migrating = state { return true }
        return false
    }

    /// The current step's messages were acknowledged: the next step, or settled in the new format (and,
    /// when the configuration asks for the other one meanwhile, a migration back).
    mutating func stepDone() -> [Action] {
        guard case .migrating(let from, let to, let step) = state else { return [] }
        switch step {
        case .announce:
            state = .migrating(from: from, to: to, step: .clear)
            return [.save, .run(.clear)]
        case .clear:
            state = .migrating(from: from, to: to, step: .publish)
            return [.save, .run(.publish)]
        case .publish:
            state = .settled(to)
            // A migration back records itself; its record says where it starts.
            let started = startIfAsked()
            return started.isEmpty ? [.save] : started
        }
    }

    /// A request to migrate to `format` (`bridge/request/homeassistant_migrate`). Returns the actions, none
    /// when the configs are in `format` already.
    /// - Throws: `Refusal` when a migration is under way, or the configuration asks for the other format.
    mutating func request(_ format: DiscoveryFormat) throws(Refusal) -> [Action] {
        if case .migrating(let from, let to, let step) = state { throw .underWay(from: from, to: to, step: step) }
        if let asked, asked != format { throw .configured(asked) }
        return start(to: format)
    }

    /// The configuration now asks for `format` (a reload): a settled other format starts a migration; one
    /// under way finishes first and the move back follows it.
    mutating func configure(_ format: DiscoveryFormat?) -> [Action] {
        asked = format
        return startIfAsked()
    }

    private mutating func startIfAsked() -> [Action] {
        guard let asked else { return [] }
        return start(to: asked)
    }

    private mutating func start(to format: DiscoveryFormat) -> [Action] {
        guard case .settled(let current) = state, current != format else { return [] }
        state = .migrating(from: current, to: format, step: .announce)
        return [.save, .run(.announce)]
    }

    // MARK: The record in the state directory

    /// The record's file in the state directory.
    static let fileName = "homeassistant-discovery.json"

    /// `state` as the record keeps it: `{"format":"entity"}`, or during a migration
    /// `{"format":"entity","migrating_to":"device","step":"publish"}` (`format` is where it started).
    var record: JSONValue {
        switch state {
        case .settled(let format): ["format": .string(format.rawValue)]
        case .migrating(let from, let to, let step):
            ["format": .string(from.rawValue), "migrating_to": .string(to.rawValue), "step": .string(step.rawValue)]
        }
    }

    /// The state a record holds; nil when it is not one (damaged, or written by something else).
    static func state(fromRecord bytes: [UInt8]) -> State? {
        guard let object = (try? JSONValue(parsing: bytes))?.objectValue,
            let format = object["format"]?.stringValue.flatMap(DiscoveryFormat.init(rawValue:))
        else { return nil }
        guard let target = object["migrating_to"] else { return .settled(format) }
        guard let to = target.stringValue.flatMap(DiscoveryFormat.init(rawValue:)), to != format,
            let step = object["step"]?.stringValue.flatMap(Step.init(rawValue:))
        else { return nil }
        return .migrating(from: format, to: to, step: step)
    }
}
