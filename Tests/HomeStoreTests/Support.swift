import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Testing

/// Collects what a stream delivers, so a test can wait (with a generous limit) until it has seen enough.
actor Recorder<Element: Sendable> {
    private(set) var items: [Element] = []
    private(set) var batches: [[Element]] = []
    private(set) var finished = false

    /// Follows a stream of batches (a store subscription).
    static func following(batches stream: AsyncStream<[Element]>) -> Recorder {
        let recorder = Recorder()
        Task {
            for await batch in stream { await recorder.record(batch) }
            await recorder.finish()
        }
        return recorder
    }

    /// Follows a stream of single elements (a provider's events).
    static func following(elements stream: AsyncStream<Element>) -> Recorder {
        let recorder = Recorder()
        Task {
            for await element in stream { await recorder.record([element]) }
            await recorder.finish()
        }
        return recorder
    }

    private func record(_ batch: [Element]) {
        items += batch
        batches.append(batch)
    }

    private func finish() { finished = true }

    /// Waits until `condition` holds for everything seen so far; false when 30 s pass first.
    func waitUntil(_ condition: ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(items) {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Waits until the stream has finished; false when 30 s pass first.
    func waitUntilFinished() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !finished {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// Waits until `condition` holds, polling; false when 30 s pass first.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while await !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

extension HomeChange {
    /// A short text for comparing changes in tests: `value 2.9=true event`, `added 2`, `removed 3`,
    /// `updated 2`, `reachable 2 false`.
    var summary: String {
        switch self {
        case .valueChanged(let address, let value, let source):
            return "value \(address.accessory.aid).\(address.iid)=\(value?.description ?? "nil") \(source.rawValue)"
        case .accessoryAdded(let a): return "added \(a.aid)"
        case .accessoryRemoved(let a): return "removed \(a.aid)"
        case .accessoryUpdated(_, let new): return "updated \(new.aid)"
        case .reachabilityChanged(let id, let reachable, _): return "reachable \(id.aid) \(reachable)"
        }
    }
}

/// Test accessories on the in-memory provider's default server.
enum Fixture {
    static let serverID = "00:00:00:00:00:01"

    static func lamp(aid: Int = 2, name: String = "Lamp") -> Accessory {
        InMemoryAccessoryProvider.accessory(aid: aid, name: name, services: [.Service.lightbulb])
    }

    static func thermometer(aid: Int = 3) -> Accessory {
        InMemoryAccessoryProvider.accessory(aid: aid, name: "Thermometer", services: [.Service.temperatureSensor])
    }

    static func button(aid: Int = 4) -> Accessory {
        InMemoryAccessoryProvider.accessory(aid: aid, name: "Button", services: [.Service.statelessProgrammableSwitch])
    }

    static func id(_ aid: Int) -> AccessoryID { AccessoryID(serverID: serverID, aid: aid) }

    /// The address of the first characteristic of `type` in the accessory.
    static func address(_ accessory: Accessory, _ type: HAPType, sourceLocation: SourceLocation = #_sourceLocation)
        throws
        -> CharacteristicAddress
    {
        let c = try #require(
            accessory.allCharacteristics.first { $0.type == type }, "no \(type) in \(accessory.id)",
            sourceLocation: sourceLocation)
        return CharacteristicAddress(accessory: accessory.id, iid: c.iid)
    }

    /// The HAP type of a short UUID, failing the test when it is none.
    static func type(_ short: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> HAPType {
        try #require(HAPType(short), sourceLocation: sourceLocation)
    }
}

/// The configuration of test stores: writes never time out by themselves. A test that holds writes must
/// not race the 10 s default on a busy machine; tests of the time-out set their own.
let untimedWrites = HomeStoreConfiguration(writeTimeout: .seconds(24 * 3600))

/// A started store with these providers, ready.
func readyStore(
    _ providers: InMemoryAccessoryProvider..., configuration: HomeStoreConfiguration = untimedWrites
) async -> HomeStore {
    let store = HomeStore(configuration: configuration, logger: Logger(label: "homestore"))
    for provider in providers { await store.add(provider) }
    await store.start()
    await store.waitUntilReady()
    return store
}

/// A store write's outcome as a Result, for tasks (whose errors are untyped).
func writeResult(_ store: HomeStore, _ address: CharacteristicAddress, _ value: CharacteristicValue) async
    -> Result<CharacteristicValue, HomeStoreError>
{
    do {
        return .success(try await store.write(address, value: value))
    } catch {
        return .failure(error)
    }
}

/// The common scene: one lamp (aid 2) on an in-memory provider, a ready store, and a recorder following
/// the store's changes from now on.
func lampScene(configuration: HomeStoreConfiguration = untimedWrites) async
    -> (lamp: Accessory, provider: InMemoryAccessoryProvider, store: HomeStore, changes: Recorder<HomeChange>)
{
    let lamp = Fixture.lamp()
    let provider = InMemoryAccessoryProvider(accessories: [lamp])
    let store = await readyStore(provider, configuration: configuration)
    return (lamp, provider, store, Recorder.following(batches: await store.subscribe().changes))
}
