public import HomeModel
public import HomeStore
import Synchronization

/// An `AccessoryProvider` that keeps its accessories in memory, for tests of the store and the Gateway.
///
/// It syncs on `start()` (or, with `autoSync: false`, when the test calls `completeSync()`), records every
/// read, write and identify it receives, and lets the test script how writes behave (succeed, fail with a
/// HAP status, hang, or take a while) and change values, accessories and reachability as an accessory
/// server would. State sits behind a Mutex because the store calls in from its own tasks.
public final class InMemoryAccessoryProvider: SnapshotProvider {
    /// How the provider answers a write.
    public enum WriteBehavior: Sendable, Hashable {
        /// Store the value and report success.
        case succeed
        /// Refuse with this HAP status.
        case fail(HAPStatus)
        /// Report the write sent and not answered (`AccessoryError.unconfirmed`), storing nothing; the
        /// test settles it with `send(.writesSettled(…))`.
        case unanswered
        /// Never answer (until the call is cancelled; it then reports `.timedOut`).
        case hang
        /// Wait this long, then succeed.
        case delay(Duration)
        /// Wait until the test calls `releaseHeldWrites()` (or the call is cancelled), then answer with
        /// the behaviour set by then.
        case hold
    }

    struct State {
        var accessories: [Accessory]
        var autoSync: Bool
        var started = false
        var unreachable: Set<AccessoryID> = []
        var defaultWrite: WriteBehavior = .succeed
        var writeBehaviors: [CharacteristicAddress: WriteBehavior] = [:]
        var readFailures: [CharacteristicAddress: AccessoryError] = [:]
        /// Accessories whose reads wait for `releaseHeldReads()`.
        var heldReads: Set<AccessoryID> = []
        var identifyFailure: AccessoryError?
        var writes: [[CharacteristicWrite]] = []
        var reads: [[CharacteristicAddress]] = []
        var identified: [AccessoryID] = []
        var snapshots: [AccessoryID: [UInt8]] = [:]
        var snapshotRequests: [(AccessoryID, width: Int, height: Int)] = []
        var writesInFlight: [AccessoryID: Int] = [:]
        var peakWritesInFlight: [AccessoryID: Int] = [:]
        var callsInFlight = 0
        var peakCallsInFlight = 0
        var releases = 0
        /// Where each characteristic was found in `accessories` last, checked on every use and built
        /// again when it no longer holds: a search of every accessory per write was the largest part of
        /// a `/set`'s time in hap2mqtt-bench command, counted as the gateway's (Benchmarks/README.md).
        var positions: [CharacteristicAddress: (Int, Int, Int)] = [:]

        /// Where `address` is in `accessories` (accessory, service, characteristic), nil when absent.
        mutating func locate(_ address: CharacteristicAddress) -> (Int, Int, Int)? {
            if let position = positions[address], holds(position, address) { return position }
            positions = [:]
            for (a, accessory) in accessories.enumerated() {
                for (s, service) in accessory.services.enumerated() {
                    for (c, characteristic) in service.characteristics.enumerated() {
                        let key = CharacteristicAddress(accessory: accessory.id, iid: characteristic.iid)
                        // The first one counts, as a search from the start finds it.
                        if positions[key] == nil { positions[key] = (a, s, c) }
                    }
                }
            }
            return positions[address]
        }

        private func holds(_ position: (Int, Int, Int), _ address: CharacteristicAddress) -> Bool {
            let (a, s, c) = position
            guard a < accessories.count, accessories[a].id == address.accessory,
                s < accessories[a].services.count, c < accessories[a].services[s].characteristics.count
            else { return false }
            return accessories[a].services[s].characteristics[c].iid == address.iid
        }
    }

    /// The provider's name in logs (`memory` by default).
    public let id: String
    /// The accessory server id of the accessories this provider builds by default.
    public let serverID: String
    /// What the provider reports; read by the store. Every event is kept (no merging), so a test sees
    /// every value it changed. Events are pushed outside the state's lock, which the reader's wake-up
    /// does not need.
    public let events = ProviderEventQueue(merging: false)
    private let state: Mutex<State>

    /// - Parameters:
    ///   - accessories: the accessories it starts with (see `accessory(aid:name:serverID:services:optional:)`).
    ///   - autoSync: whether `start()` reports the first sync at once; when false the test calls
    ///     `completeSync()` (or `failSync(_:)`).
    public init(
        id: String = "memory", serverID: String = "00:00:00:00:00:01", accessories: [Accessory] = [],
        autoSync: Bool = true
    ) {
        self.id = id
        self.serverID = serverID
        state = Mutex(State(accessories: accessories, autoSync: autoSync))
    }

    // MARK: AccessoryProvider

    /// Reports the first sync at once unless made with `autoSync: false`.
    public func start() async {
        let synced = state.withLock { s -> [Accessory]? in
            s.started = true
            return s.autoSync ? s.accessories : nil
        }
        if let synced { events.push(.synced(synced)) }
    }

    /// Finishes `events`.
    public func stop() async { events.finish() }

    /// The held values; a failure set with `setReadFailure(_:for:)`, `.unreachable` for an accessory set
    /// unreachable, `.unknown` for an address it does not have; after `releaseHeldReads()` for an
    /// accessory given to `holdReads(of:)`.
    public func read(_ addresses: [CharacteristicAddress]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >] {
        while !Task.isCancelled, state.withLock({ s in addresses.contains { s.heldReads.contains($0.accessory) } }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return state.withLock { s in
            s.reads.append(addresses)
            var results: [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>] = [:]
            for address in addresses {
                if let failure = s.readFailures[address] {
                    results[address] = .failure(failure)
                } else if s.unreachable.contains(address.accessory) {
                    results[address] = .failure(.unreachable("in-memory accessory set unreachable"))
                } else if let location = s.locate(address) {
                    results[address] = .success(
                        s.accessories[location.0].services[location.1].characteristics[location.2].value)
                } else {
                    results[address] = .failure(.unknown("characteristic \(address)"))
                }
            }
            return results
        }
    }

    /// Records the request, then answers as `setWriteBehavior(_:for:)` says; a successful write stores
    /// the value and answers with it when `wantsResponse` is set. It runs on the caller's executor, so
    /// an answer without a scripted wait comes within the caller's own step.
    nonisolated(nonsending) public func write(_ writes: [CharacteristicWrite]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >] {
        var (behaviors, heldSince) = state.withLock { s -> ([WriteBehavior], Int) in
            s.writes.append(writes)
            s.callsInFlight += 1
            s.peakCallsInFlight = max(s.peakCallsInFlight, s.callsInFlight)
            for id in Self.accessories(of: writes) {
                s.writesInFlight[id, default: 0] += 1
                s.peakWritesInFlight[id] = max(s.peakWritesInFlight[id] ?? 0, s.writesInFlight[id] ?? 0)
            }
            return (writes.map { s.writeBehaviors[$0.address] ?? s.defaultWrite }, s.releases)
        }
        defer {
            state.withLock { s in
                s.callsInFlight -= 1
                for id in Self.accessories(of: writes) { s.writesInFlight[id, default: 1] -= 1 }
            }
        }
        if behaviors.contains(.hold) {
            while !Task.isCancelled, state.withLock({ $0.releases }) == heldSince {
                try? await Task.sleep(for: .milliseconds(2))
            }
            behaviors = state.withLock { s in
                writes.map { s.writeBehaviors[$0.address] ?? s.defaultWrite }.map { $0 == .hold ? .succeed : $0 }
            }
        }
        if behaviors.contains(.hang) { try? await Task.sleep(for: .seconds(24 * 3600)) }
        if behaviors.contains(.hang) || Task.isCancelled {
            return Dictionary(writes.map { ($0.address, .failure(.timedOut)) }, uniquingKeysWith: { _, new in new })
        }
        let delays = behaviors.compactMap { behavior -> Duration? in
            if case .delay(let d) = behavior { return d }
            return nil
        }
        if let longest = delays.max() { try? await Task.sleep(for: longest) }
        return state.withLock { s in
            var results: [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>] = [:]
            for (write, behavior) in zip(writes, behaviors) {
                if case .fail(let status) = behavior {
                    results[write.address] = .failure(.status(status))
                } else if behavior == .unanswered {
                    results[write.address] = .failure(.unconfirmed("the in-memory accessory did not answer"))
                } else if s.unreachable.contains(write.address.accessory) {
                    results[write.address] = .failure(.unreachable("in-memory accessory set unreachable"))
                } else if let (a, sv, c) = s.locate(write.address) {
                    s.accessories[a].services[sv].characteristics[c].value = write.value
                    results[write.address] = .success(write.wantsResponse ? write.value : nil)
                } else {
                    results[write.address] = .failure(.unknown("characteristic \(write.address)"))
                }
            }
            return results
        }
    }

    /// Records the accessory; throws the failure set with `setIdentifyFailure(_:)`.
    /// Reports every accessory as it is now as a fresh sync (`replaceAccessories` sets what that is).
    public func refresh() async throws(AccessoryError) { resync() }

    public func identify(_ accessory: AccessoryID) async throws(AccessoryError) {
        let failure = state.withLock { s in
            s.identified.append(accessory)
            return s.identifyFailure
        }
        if let failure { throw failure }
    }

    /// The image set with `setSnapshot`, recording the request; `.status(-70409)` for an accessory without one.
    public func snapshot(_ accessory: AccessoryID, width: Int, height: Int) async throws(AccessoryError) -> [UInt8] {
        let image = state.withLock { s in
            s.snapshotRequests.append((accessory, width, height))
            return s.snapshots[accessory]
        }
        guard let image else { throw .status(.resourceDoesNotExist) }
        return image
    }

    // MARK: Controls for tests

    /// What `snapshot` answers for `accessory` from now on (nil: no image).
    public func setSnapshot(_ image: [UInt8]?, for accessory: AccessoryID) {
        state.withLock { $0.snapshots[accessory] = image }
    }

    /// Every snapshot asked for so far: accessory and size.
    public var snapshotRequests: [(accessory: AccessoryID, width: Int, height: Int)] {
        state.withLock { $0.snapshotRequests.map { ($0.0, $0.width, $0.height) } }
    }

    /// Reports the first sync (for a provider made with `autoSync: false`).
    public func completeSync() { resync() }

    /// Reports that the first sync failed.
    public func failSync(_ reason: String = "in-memory sync failed") { events.push(.syncFailed(reason: reason)) }

    /// Reports a full sync with the current accessories.
    public func resync() { events.push(.synced(state.withLock { $0.accessories })) }

    /// How writes to `address` behave; nil sets the default for every characteristic without its own.
    public func setWriteBehavior(_ behavior: WriteBehavior, for address: CharacteristicAddress? = nil) {
        state.withLock { s in
            if let address { s.writeBehaviors[address] = behavior } else { s.defaultWrite = behavior }
        }
    }

    /// Lets every write held by `.hold` answer, with the behaviour set by then (`.hold` itself: success).
    public func releaseHeldWrites() { state.withLock { $0.releases += 1 } }

    /// Makes reads of `address` fail with `error` (nil: read normally again).
    public func setReadFailure(_ error: AccessoryError?, for address: CharacteristicAddress) {
        state.withLock { $0.readFailures[address] = error }
    }

    /// Makes every read of `accessory` wait, unanswered and unrecorded, until `releaseHeldReads()` (or
    /// until the call is cancelled), as a silent accessory does.
    public func holdReads(of accessory: AccessoryID) { state.withLock { _ = $0.heldReads.insert(accessory) } }

    /// Lets the reads held by `holdReads(of:)` go on.
    public func releaseHeldReads() { state.withLock { $0.heldReads = [] } }

    /// Makes identify fail with `error` (nil: succeed again).
    public func setIdentifyFailure(_ error: AccessoryError?) { state.withLock { $0.identifyFailure = error } }

    /// Every write request received, in order.
    public var writes: [[CharacteristicWrite]] { state.withLock { $0.writes } }

    /// Every read request received, in order.
    public var reads: [[CharacteristicAddress]] { state.withLock { $0.reads } }

    /// Every accessory asked to identify, in order.
    public var identified: [AccessoryID] { state.withLock { $0.identified } }

    /// The most write requests that were in flight at once for one accessory.
    public func peakConcurrentWrites(for accessory: AccessoryID) -> Int {
        state.withLock { $0.peakWritesInFlight[accessory] ?? 0 }
    }

    /// The most write requests that were in flight at once, all accessories together.
    public var peakConcurrentWrites: Int { state.withLock { $0.peakCallsInFlight } }

    /// The accessories as the provider holds them now.
    public var accessories: [Accessory] { state.withLock { $0.accessories } }

    /// The value the provider holds for `address`.
    public func value(at address: CharacteristicAddress) -> CharacteristicValue? {
        state.withLock { s in
            s.locate(address).flatMap {
                s.accessories[$0.0].services[$0.1].characteristics[$0.2].value
            }
        }
    }

    /// Changes a value and reports it, as an accessory's event (or poll) would.
    public func changeValue(
        _ address: CharacteristicAddress, to value: CharacteristicValue, source: ValueSource = .event
    ) {
        changeValues([(address, value)], source: source)
    }

    /// Changes several values and reports them in one `.values` event.
    public func changeValues(_ changes: [(CharacteristicAddress, CharacteristicValue)], source: ValueSource = .event) {
        state.withLock { s in
            for (address, value) in changes {
                if let (a, sv, c) = s.locate(address) {
                    s.accessories[a].services[sv].characteristics[c].value = value
                }
            }
        }
        events.push(.values(changes.map { ValueUpdate(address: $0.0, value: $0.1, source: source) }))
    }

    /// Adds an accessory (replacing one with its id) and reports it.
    public func add(_ accessory: Accessory) {
        state.withLock { s in
            s.accessories.removeAll { $0.id == accessory.id }
            s.accessories.append(accessory)
        }
        events.push(.accessoryAdded(accessory))
    }

    /// Removes the accessory with this aid (on this provider's server id) and reports it.
    public func remove(aid: Int) {
        let id = AccessoryID(serverID: serverID, aid: aid)
        state.withLock { s in s.accessories.removeAll { $0.id == id } }
        events.push(.accessoryRemoved(id))
    }

    /// Replaces the accessory with the same id and reports the update.
    public func update(_ accessory: Accessory) {
        state.withLock { s in
            if let index = s.accessories.firstIndex(where: { $0.id == accessory.id }) {
                s.accessories[index] = accessory
            } else {
                s.accessories.append(accessory)
            }
        }
        events.push(.accessoryUpdated(accessory))
    }

    /// Changes the provider's accessory list without reporting it (for a later `resync()`).
    public func replaceAccessories(_ accessories: [Accessory]) { state.withLock { $0.accessories = accessories } }

    /// Marks accessories reachable or not and reports it.
    public func setReachable(_ ids: [AccessoryID], _ reachable: Bool) {
        state.withLock { s in
            if reachable { s.unreachable.subtract(ids) } else { s.unreachable.formUnion(ids) }
        }
        events.push(
            .reachability(ids, reachable: reachable, reason: reachable ? nil : "in-memory accessory set unreachable"))
    }

    /// Reports any event, as it is: for tests of how the store copes with odd input.
    public func send(_ event: ProviderEvent) { events.push(event) }

    /// The accessories a request writes to, each once, in order (a request rarely has more than one).
    private static func accessories(of writes: [CharacteristicWrite]) -> [AccessoryID] {
        var ids: [AccessoryID] = []
        for write in writes where !ids.contains(write.address.accessory) { ids.append(write.address.accessory) }
        return ids
    }
}
