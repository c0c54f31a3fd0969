import JSON

/// Whether the characteristics a session subscribed to send their events (docs/DESIGN.md "Availability and
/// recovery"): many accessories advertise `ev`, accept the subscription and never send one. Every value
/// read or heard is kept (as a hash, in memory only, for one session); a read that finds a value changed
/// without an event having told it makes the characteristic a suspect, and a suspect that no event clears
/// within `eventWait` (`takeVerdicts(before:)`) is one whose events do not come. The wait until then lets
/// an event that was already on its way when the read's answer came be heard first.
///
/// Writes of this controller are not told back as events (HAP spec §6.8: the writer gets none), so a
/// written characteristic's value is forgotten (`forget(_:)`) rather than taken for an unseen change.
struct EventVerification: Sendable {
    /// The characteristics being verified, with the hash of their last known value (nil: none known yet).
    private var known: [HAPCharacteristicID: Int?] = [:]
    /// Characteristics a read found changed without an event, and when.
    private var suspects: [HAPCharacteristicID: ContinuousClock.Instant] = [:]

    /// How long after a read found a change an event of it may still come: one already on its way when
    /// the answer came is handed over by another task, moments later.
    static let eventWait = Duration.seconds(5)

    /// Verifies `ids` (subscribed, stateful characteristics whose events are still trusted).
    init(watching ids: [HAPCharacteristicID] = []) {
        for id in ids { known[id] = .some(nil) }
    }

    /// An event told `value`: the characteristic sends events.
    mutating func heard(_ id: HAPCharacteristicID, _ value: JSONValue?) {
        guard known[id] != nil else { return }
        known[id] = value.hashValue
        suspects[id] = nil
    }

    /// A read answered `value` at `time`; a change from the last known value without an event makes a
    /// suspect.
    mutating func read(_ id: HAPCharacteristicID, _ value: JSONValue?, at time: ContinuousClock.Instant) {
        guard let last = known[id] else { return }
        let hash = value.hashValue
        if let last, last != hash, suspects[id] == nil { suspects[id] = time }
        known[id] = hash
    }

    /// This controller wrote the characteristic: its last value is unknown, and that is no missing event.
    mutating func forget(_ id: HAPCharacteristicID) {
        guard known[id] != nil else { return }
        known[id] = .some(nil)
        suspects[id] = nil
    }

    /// The suspects that became suspects before `cutoff` and that no event cleared since, sorted; they
    /// are no longer verified.
    mutating func takeVerdicts(before cutoff: ContinuousClock.Instant) -> [HAPCharacteristicID] {
        let verdicts = suspects.filter { $0.value < cutoff }.keys.sorted()
        for id in verdicts {
            known[id] = nil
            suspects[id] = nil
        }
        return verdicts
    }

    /// Whether `id` is being verified.
    func isWatching(_ id: HAPCharacteristicID) -> Bool { known[id] != nil }
}
