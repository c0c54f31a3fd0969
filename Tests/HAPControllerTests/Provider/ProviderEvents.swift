import HomeModel
import HomeStore
import Testing

@testable import HAPController

/// Collects what a provider reports, for tests to wait on.
actor ProviderEvents {
    private(set) var items: [ProviderEvent] = []

    init(_ events: ProviderEventQueue) {
        let stream = events.stream
        Task { await self.follow(stream) }
    }

    private func follow(_ stream: AsyncStream<ProviderEvent>) async {
        for await event in stream { items.append(event) }
    }

    /// Waits up to `timeout` until at least `count` events arrived; returns them all.
    func wait(count: Int, timeout: Duration = .seconds(30)) async throws -> [ProviderEvent] {
        try await eventuallyHere("\(count) provider events (have \(items.map(Self.summary)))", timeout: timeout) {
            items.count >= count
        }
        return items
    }

    /// The events as short lines: `synced [1, 2]`, `reachability [2] false`, `values 2.10=true event`.
    var summaries: [String] { items.map(Self.summary) }

    static func summary(_ event: ProviderEvent) -> String {
        switch event {
        case .synced(let accessories): return "synced \(accessories.map(\.aid))"
        case .syncFailed: return "syncFailed"
        case .values(let updates):
            return "values "
                + updates.map {
                    "\($0.address.accessory.aid).\($0.address.iid)=\($0.value?.description ?? "nil") \($0.source.rawValue)"
                }.joined(separator: " ")
        case .accessoryAdded(let a): return "added \(a.aid)"
        case .accessoryRemoved(let id): return "removed \(id.aid)"
        case .accessoryUpdated(let a): return "updated \(a.aid)"
        case .reachability(let ids, let reachable, _): return "reachability \(ids.map(\.aid)) \(reachable)"
        case .writesSettled(let readBacks):
            return "settled "
                + readBacks.map {
                    "\($0.address.accessory.aid).\($0.address.iid)=\($0.value?.description ?? "nil") (written \($0.written))"
                }.joined(separator: " ")
        }
    }

    private func eventuallyHere(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw ProviderTestError.timedOut(what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

enum ProviderTestError: Error, CustomStringConvertible {
    case timedOut(String)
    var description: String {
        switch self {
        case .timedOut(let what): return "timed out waiting for \(what)"
        }
    }
}
