import JSON

/// What a provider learned about how one accessory server misbehaves, kept across restarts in the state
/// directory (`AccessoryProfileFile`) and shown in `bridge/health` (docs/DESIGN.md "Availability and
/// recovery"). Real accessories advertise events and never send them, refuse reads of many characteristics
/// at once with `-70407` (out of resources), or end connections that stay quiet.
///
/// It is a value with transitions: `learn(_:)` takes what the provider observed and returns the change
/// to act on (and log, once), or nil when it teaches nothing new. The provider consults it for what to
/// poll, how many characteristics one read may ask for, and how often to keep the connection alive.
struct AccessoryServerProfile: Sendable, Hashable {
    /// Something the provider observed.
    enum Observation: Sendable, Hashable {
        /// A read found the value of a characteristic subscribed to events changed, and no event of it came
        /// (`EventVerification` gives the accessory the time for one to arrive).
        case eventMissing(HAPCharacteristicID)
        /// A read of `batch` characteristics was answered `-70407` (out of resources).
        case outOfResources(batch: Int)
        /// The accessory ended a connection quiet for `quiet` and answered the reconnect at once.
        case idleClose(quiet: Duration)
    }

    /// What changed, for the provider to apply and log.
    enum Change: Sendable, Hashable {
        /// The characteristic is polled at the poll interval from now on, its events not trusted.
        case pollInstead(HAPCharacteristicID)
        /// Reads ask for at most this many characteristics at once.
        case readBatch(Int)
        /// The accessory's idle limit is `limit`: the keep-alive must stay below it.
        case idleLimit(Duration)
    }

    /// Characteristics whose events never came while their value changed: polled instead.
    private(set) var pollInsteadOfEvents: Set<HAPCharacteristicID> = []
    /// The most characteristics one read may ask for; nil until the accessory refused a read.
    private(set) var readBatchLimit: Int?
    /// How quiet a connection may get before the accessory ends it.
    private(set) var idleLimit = IdleLimit()

    /// Takes an observation.
    /// - Returns: the change it brings, or nil when the profile knew it already.
    mutating func learn(_ observation: Observation) -> Change? {
        switch observation {
        case .eventMissing(let id):
            guard pollInsteadOfEvents.insert(id).inserted else { return nil }
            return .pollInstead(id)
        case .outOfResources(let batch):
            // Halving finds a size the accessory takes in a few refused reads; a batch of one cannot be
            // split, and its -70407 is the characteristic's own answer.
            guard batch > 1 else { return nil }
            let smaller = batch / 2
            guard readBatchLimit.map({ smaller < $0 }) ?? true else { return nil }
            readBatchLimit = smaller
            return .readBatch(smaller)
        case .idleClose(let quiet):
            guard idleLimit.learn(quiet: quiet), let observed = idleLimit.observed else { return nil }
            return .idleLimit(observed)
        }
    }

    /// How many characteristics one read asks for: the learned limit, else `standard`.
    func readBatch(standard: Int) -> Int { min(standard, readBatchLimit ?? standard) }

    /// The keep-alive interval: `configured`, or half the idle limit when that is shorter.
    func keepalive(configured: Duration) -> Duration { idleLimit.keepalive(configured: configured) }

    /// Whether nothing was learned.
    var isEmpty: Bool { pollInsteadOfEvents.isEmpty && readBatchLimit == nil && idleLimit.observed == nil }

    /// The stored form: `{"poll_instead_of_events":["2.10"],"read_batch_limit":4,"idle_limit":20.5}`
    /// (seconds), members left out while not learned.
    var json: JSONValue {
        var object = JSONObject()
        if !pollInsteadOfEvents.isEmpty {
            object.append(
                "poll_instead_of_events", .array(pollInsteadOfEvents.sorted().map { .string($0.description) }))
        }
        if let readBatchLimit { object.append("read_batch_limit", .int(Int64(readBatchLimit))) }
        if let observed = idleLimit.observed { object.append("idle_limit", .double(observed.inSeconds)) }
        return .object(object)
    }

    init() {}

    /// The profile of a stored form; members it does not know, or of the wrong type, are left out (a
    /// profile is relearned, never trusted blindly: a limit below 1 or an idle limit below
    /// `IdleLimit.shortestQuiet` is ignored).
    init(json: JSONValue) {
        guard let object = json.objectValue else { return }
        for item in object["poll_instead_of_events"]?.arrayValue ?? [] {
            if let id = item.stringValue.flatMap(HAPCharacteristicID.init) { pollInsteadOfEvents.insert(id) }
        }
        if let limit = object["read_batch_limit"]?.intValue, limit >= 1 { readBatchLimit = limit }
        if let seconds = object["idle_limit"]?.doubleValue, seconds.isFinite, seconds < 1e9 {
            _ = idleLimit.learn(quiet: .milliseconds(Int64((seconds * 1000).rounded())))
        }
    }
}
