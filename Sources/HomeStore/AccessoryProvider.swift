public import HomeModel

/// A backend that supplies accessories to the `HomeStore`: the HAP controller over IP, or the in-memory
/// provider of the tests. A second backend (BLE, Thread) fits behind this protocol without touching the
/// `Gateway` (docs/DESIGN.md "Parts").
///
/// Life cycle: the store reads `events`, then calls `start()`. The provider reports its first full sync
/// with `.synced` (or `.syncFailed` when its accessory server cannot be reached at all), then reports
/// changes as they happen, and a fresh `.synced` whenever it re-fetched everything (after a reconnect or
/// a configuration-number change), which the store reconciles with what it holds. `stop()` ends the
/// provider and finishes `events`.
public protocol AccessoryProvider: Sendable {
    /// A stable name for logs and errors, e.g. `hap:AA:BB:CC:DD:EE:FF` or `memory`.
    var id: String { get }

    /// The accessory server whose accessories this provider reports, when it reports those of one server
    /// (the `serverID` of their `AccessoryID`s, upper-case): the store then knows whose accessories are
    /// unknown while its first sync fails. Nil (the default) for a provider of several servers.
    var serverID: String? { get }

    /// What the provider reports, in order: it pushes its events here, and the store takes them
    /// (`ProviderEventQueue.swift`). Read by exactly one reader, the store.
    var events: ProviderEventQueue { get }

    /// Connects and begins the first sync. Returns once the work is under way; the sync itself is
    /// reported through `events`.
    func start() async

    /// Disconnects, ends every background task and finishes `events`.
    func stop() async

    /// Reads the current values of characteristics, all of one accessory server. A result of
    /// `.success(nil)` means the accessory returned no value.
    func read(_ addresses: [CharacteristicAddress]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >]

    /// Writes values in one request per accessory server and awaits the accessory's answer. On success
    /// the value is the write response (`wr`) when the accessory sent one, else nil.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`, SE-0461): the store calls it from its
    /// own, so a provider that answers without waiting answers within the store's step, with no task
    /// hand-off. An actor's `write` (the HAP provider's) still runs on its actor; another provider with
    /// slow synchronous work should move that work off the caller's executor. The store cancels the
    /// call when the write times out.
    nonisolated(nonsending) func write(_ writes: [CharacteristicWrite]) async
        -> [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]

    /// `write(_:)`, answered by `deadline` (the store's write time-out, counted from when the command
    /// came): a provider that keeps it (`keepsWriteDeadline`) sends nothing after it and says, for each
    /// write, whether it went out (`.unconfirmed`) or not (`.notSent`). The default ignores it.
    nonisolated(nonsending) func write(_ writes: [CharacteristicWrite], deadline: ContinuousClock.Instant) async
        -> [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]

    /// Whether `write(_:deadline:)` answers by its deadline; the store's watchdog then gives it a second
    /// more before it fails the write itself, so that the provider's answer, which knows whether the
    /// write went out, is the one the writer gets. False by default.
    var keepsWriteDeadline: Bool { get }

    /// Asks the accessory to identify itself (blink, beep).
    /// - Throws: `AccessoryError` when the accessory cannot be reached or refuses.
    func identify(_ accessory: AccessoryID) async throws(AccessoryError)

    /// Fetches every accessory and value again and reports them as a fresh `.synced`
    /// (`bridge/request/refresh`).
    /// - Throws: `AccessoryError` when the accessory server cannot be reached, or the provider cannot.
    func refresh() async throws(AccessoryError)

    /// What it knows about its connection (`bridge/health`); a provider that says nothing keeps the
    /// default of `ProviderStatistics.swift`.
    func diagnostics() async -> ProviderDiagnostics

    /// Whether a write to one of its unreachable accessories is still handed to it (docs/DESIGN.md
    /// "Writes"): true for a provider that then tries to reach the accessory at once and answers within
    /// about a second either way (the HAP provider: a command ends its reconnection back-off); false, the
    /// default, to have the store refuse such a write at once.
    var connectsOnDemand: Bool { get }
}

/// One write of a characteristic value. `timed` asks for a HAP timed write (`/prepare` first), which
/// characteristics with the `tw` permission need; `wantsResponse` asks for the write response (`r`) of
/// characteristics with `wr`.
public struct CharacteristicWrite: Sendable, Hashable {
    public var address: CharacteristicAddress
    public var value: CharacteristicValue
    public var timed: Bool
    public var wantsResponse: Bool

    public init(
        address: CharacteristicAddress, value: CharacteristicValue, timed: Bool = false, wantsResponse: Bool = false
    ) {
        self.address = address
        self.value = value
        self.timed = timed
        self.wantsResponse = wantsResponse
    }
}

/// Where a value came from. The Gateway fires Home Assistant `event` entities only for `.event` values of
/// stateless characteristics, never for a poll or a reconnect (docs/hap-notes.md §4.8).
public enum ValueSource: String, Sendable, Hashable {
    /// An unsolicited notification from the accessory (HAP `EVENT/1.0`).
    case event
    /// A periodic read of a characteristic without events.
    case poll
    /// A read asked for by a user (`/get`) or by the store.
    case read
    /// The accessory confirmed a write.
    case write
    /// A full sync (first connect, reconnect).
    case sync
}

/// A new value for one characteristic, as a provider reports it.
public struct ValueUpdate: Sendable, Hashable {
    public var address: CharacteristicAddress
    public var value: CharacteristicValue?
    public var source: ValueSource

    public init(address: CharacteristicAddress, value: CharacteristicValue?, source: ValueSource) {
        self.address = address
        self.value = value
        self.source = source
    }
}

/// What an `AccessoryProvider` reports to the store.
public enum ProviderEvent: Sendable {
    /// Every accessory the provider has now, with current values. The first one finishes the provider's
    /// first sync; later ones are reconciled: new accessories are added, missing ones removed, changed
    /// ones updated, and values that differ reported as changes.
    case synced([Accessory])
    /// The first sync could not be done (e.g. the accessory server is unreachable). Counts as finished
    /// for the store's readiness; the provider keeps trying and sends `.synced` when it succeeds.
    case syncFailed(reason: String)
    /// Values changed (events, polls), in the order they happened.
    case values([ValueUpdate])
    /// An accessory appeared without a full sync.
    case accessoryAdded(Accessory)
    /// An accessory is gone.
    case accessoryRemoved(AccessoryID)
    /// An accessory's services, characteristics or metadata changed.
    case accessoryUpdated(Accessory)
    /// Accessories became reachable or unreachable; `reason` says why when they became unreachable.
    case reachability([AccessoryID], reachable: Bool, reason: String?)
    /// Writes that failed `.unconfirmed` were read back once the accessory answered again: what each
    /// characteristic holds now, after the connection the write went out on was gone.
    case writesSettled([WriteReadBack])
}

/// One characteristic read back after a write to it failed `.unconfirmed` (`ProviderEvent.writesSettled`).
public struct WriteReadBack: Sendable, Hashable {
    /// The characteristic written.
    public var address: CharacteristicAddress
    /// The value the unconfirmed write sent.
    public var written: CharacteristicValue
    /// The value read back (nil when the accessory gave none).
    public var value: CharacteristicValue?

    public init(address: CharacteristicAddress, written: CharacteristicValue, value: CharacteristicValue?) {
        self.address = address
        self.written = written
        self.value = value
    }
}

/// Why a provider could not read, write or identify.
public enum AccessoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The accessory answered with a HAP status error.
    case status(HAPStatus)
    /// The accessory server cannot be reached now.
    case unreachable(String)
    /// The accessory did not answer in time.
    case timedOut
    /// A write was sent and no answer came (`why`): the accessory may have carried it out. A provider
    /// that reports it reads the value back once the accessory answers again (`.writesSettled`).
    case unconfirmed(String)
    /// A write was never sent (`why`): the accessory cannot carry it out.
    case notSent(String)
    /// The provider does not know this accessory or characteristic.
    case unknown(String)
    /// Any other failure, in words.
    case failed(String)

    public var description: String {
        switch self {
        case .status(let s): return s.description
        case .unreachable(let why): return "accessory unreachable: \(why)"
        case .timedOut: return "accessory did not answer in time"
        case .unconfirmed(let why), .notSent(let why): return why
        case .unknown(let what): return "unknown \(what)"
        case .failed(let why): return why
        }
    }

    /// The HAP status this error stands for: its own status, -70402 when unreachable, -70408 on time-out.
    public var hapStatus: HAPStatus? {
        switch self {
        case .status(let s): return s
        case .unreachable, .notSent: return .serviceCommunicationFailure
        case .timedOut, .unconfirmed: return .operationTimedOut
        case .unknown: return .resourceDoesNotExist
        case .failed: return nil
        }
    }
}

extension AccessoryProvider {
    public var serverID: String? { nil }
    public var connectsOnDemand: Bool { false }
    public var keepsWriteDeadline: Bool { false }

    public nonisolated(nonsending) func write(_ writes: [CharacteristicWrite], deadline: ContinuousClock.Instant)
        async -> [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]
    {
        await write(writes)
    }
}
