import Synchronization

@testable import HAPController

/// A `ServiceBrowser` the test drives: what it `send`s is what the browse reports, so that
/// `HAPDiscovery` and the provider can be tested without a daemon (the real one runs in the namespace
/// tests, `Tests/IntegrationTests/Discovery`).
final class FakeServiceBrowser: ServiceBrowser {
    private struct State {
        var continuation: AsyncStream<ServiceBrowserEvent>.Continuation?
        var unavailable: String?
        var browses = 0
    }

    private let state: Mutex<State>

    /// A browser; with `unavailable`, `browse` fails as when the daemon cannot be reached, with that reason.
    init(unavailable: String? = nil) {
        state = Mutex(State(unavailable: unavailable))
    }

    func browse(type: String, waitingForDaemon: Bool) async throws(DiscoveryError) -> AsyncStream<ServiceBrowserEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ServiceBrowserEvent.self)
        try state.withLock { s throws(DiscoveryError) in
            s.browses += 1
            if let reason = s.unavailable { throw .daemonUnavailable(reason: reason) }
            s.continuation?.finish()
            s.continuation = continuation
        }
        return stream
    }

    func stop() async {
        state.withLock { s in
            s.continuation?.finish()
            s.continuation = nil
        }
    }

    /// How often `browse` was called.
    var browses: Int { state.withLock { $0.browses } }
    /// Whether a browse runs.
    var isBrowsing: Bool { state.withLock { $0.continuation != nil } }

    /// Makes the daemon reachable (nil) or not from the next `browse` on.
    func setUnavailable(_ reason: String?) { state.withLock { $0.unavailable = reason } }

    /// Reports `events` on the browse under way.
    func send(_ events: ServiceBrowserEvent...) {
        state.withLock { s in
            for event in events { s.continuation?.yield(event) }
        }
    }
}

extension ServiceInstance {
    /// A `_hap._tcp` instance with the usual TXT keys (`c#`, `s#`, `sf`, `ci`, `md`, `pv`, `ff`, `id`);
    /// `extra` strings are added as they are.
    static func hap(
        _ name: String, id: String?, port: UInt16, addresses: [String] = ["127.0.0.1"], configuration: Int = 1,
        state: Int = 1,
        statusFlags: Int = 0, category: Int = 2, model: String = "Bridge", extra: [[UInt8]] = []
    ) -> ServiceInstance {
        var txt = [
            "c#=\(configuration)", "s#=\(state)", "sf=\(statusFlags)", "ci=\(category)", "md=\(model)", "pv=1.1",
            "ff=0",
        ]
        if let id { txt.append("id=\(id)") }
        return ServiceInstance(
            name: name, hostName: name.replacingOccurrences(of: " ", with: "-") + ".local", port: port,
            addresses: addresses,
            txt: txt.map { Array($0.utf8) } + extra)
    }
}
