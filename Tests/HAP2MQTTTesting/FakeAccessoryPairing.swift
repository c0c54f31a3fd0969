public import HomeStore
import Synchronization

/// An `AccessoryPairing` that records what it was asked and answers as told: a pair can be held until
/// `release()`, and a failure given for every call.
public final class FakeAccessoryPairing: AccessoryPairing {
    private struct State {
        var pairs: [PairRequest] = []
        var unpairs: [(String, Bool)] = []
        var controllerChanges: [String] = []
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var failure: ManagementError?
    }

    private let state = Mutex(State())

    /// A backend that pairs at once.
    public init() {}

    /// The setup codes the pairs were given.
    public var codes: [String] { state.withLock { $0.pairs.compactMap { $0.code?.reveal } } }
    /// How many pairs were started.
    public var pairCount: Int { state.withLock { $0.pairs.count } }
    /// The unpairs asked for: the name or id given, and `force`.
    public var unpairs: [(String, Bool)] { state.withLock { $0.unpairs } }

    /// The controller pairing operations asked for, as `list <server>`, `add <id> <server>`,
    /// `remove <id> <server>`.
    public var controllerChanges: [String] { state.withLock { $0.controllerChanges } }

    /// Every pair waits for `release()` from now on.
    public func hold() { state.withLock { $0.holding = true } }

    /// Lets held pairs go on, and the next ones too.
    public func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Every call fails with `error` from now on.
    public func fail(with error: ManagementError) { state.withLock { $0.failure = error } }

    public func pair(_ request: PairRequest) async throws(ManagementError) -> PairedServer {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                state.pairs.append(request)
                if state.holding { state.held.append(continuation) }
                return state.holding
            }
            if !wait { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return PairedServer(
            id: "AA:BB:CC:DD:EE:FF", name: request.name ?? "Desk Lamp", host: request.host ?? "10.0.0.9",
            port: UInt16(request.port ?? 51826))
    }

    public func controllerPairings(of nameOrID: String) async throws(ManagementError) -> ControllerPairings {
        try recordControllerChange("list \(nameOrID)", nameOrID)
    }

    public func addControllerPairing(_ controller: ControllerPairing, to nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
    {
        try recordControllerChange("add \(controller.id) \(nameOrID)", nameOrID)
    }

    public func removeControllerPairing(_ pairingID: String, from nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
    {
        try recordControllerChange("remove \(pairingID) \(nameOrID)", nameOrID)
    }

    private func recordControllerChange(_ change: String, _ nameOrID: String) throws(ManagementError)
        -> ControllerPairings
    {
        state.withLock { $0.controllerChanges.append(change) }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return ControllerPairings(id: nameOrID, name: "Desk Lamp", ownID: "own", pairings: [])
    }

    public func unpair(_ nameOrID: String, force: Bool) async throws(ManagementError) -> UnpairResult {
        state.withLock { $0.unpairs.append((nameOrID, force)) }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return UnpairResult(
            id: nameOrID, name: "Desk Lamp", outcome: force ? .removedLocallyOnly(reason: "cannot reach it") : .removed)
    }
}

/// An `AccessoryDiscovery` whose list the test sets.
public final class FakeAccessoryDiscovery: AccessoryDiscovery {
    private let state = Mutex<
        (list: [DiscoveredAccessory], streams: [AsyncStream<[DiscoveredAccessory]>.Continuation])
    >(([], []))

    /// A discovery that has seen nothing yet.
    public init() {}

    /// Sets the list and tells every stream.
    public func set(_ list: [DiscoveredAccessory]) {
        let streams = state.withLock { state in
            state.list = list
            return state.streams
        }
        for stream in streams { stream.yield(list) }
    }

    public func discoveredAccessories() async -> [DiscoveredAccessory] { state.withLock { $0.list } }

    public func discoveredAccessoryChanges() async -> AsyncStream<[DiscoveredAccessory]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [DiscoveredAccessory].self)
        let list = state.withLock { state in
            state.streams.append(continuation)
            return state.list
        }
        continuation.yield(list)
        return stream
    }
}
