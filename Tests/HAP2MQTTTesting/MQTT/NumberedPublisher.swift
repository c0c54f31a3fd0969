public import MQTT
import Synchronization

/// A sender of numbered QoS 1 messages, as a script sending `/set`s in a loop would: message `n` is made
/// by `make(n)` and published every 50–200 ms, each awaited in a task of its own (so that one waiting
/// for a reconnect does not hold the next back). `accepted` are the numbers the broker acknowledged:
/// those it took responsibility for.
public final class NumberedPublisher: Sendable {
    private let client: MQTTClient
    private let make: @Sendable (Int) -> MQTTMessage
    private let state = Mutex<(accepted: Set<Int>, sent: Int, stopping: Bool)>(([], 0, false))
    private let loop = Mutex<Task<Void, Never>?>(nil)

    /// A publisher on `client`, which must be connected; nothing is sent before `start()`.
    public init(client: MQTTClient, make: @escaping @Sendable (Int) -> MQTTMessage) {
        self.client = client
        self.make = make
    }

    /// Starts sending.
    public func start() {
        let task = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                var n = 0
                while !state.withLock({ $0.stopping }) {
                    let message = make(n)
                    let number = n
                    group.addTask { [self] in
                        if (try? await client.publishAndWait(message)) != nil {
                            state.withLock { _ = $0.accepted.insert(number) }
                        }
                    }
                    n += 1
                    state.withLock { $0.sent = n }
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 50...200)))
                }
            }
        }
        loop.withLock { $0 = task }
    }

    /// Stops sending and returns when every message sent has been acknowledged or has failed.
    public func stop() async {
        state.withLock { $0.stopping = true }
        await loop.withLock({ $0 })?.value
    }

    /// The numbers of the messages the broker acknowledged.
    public var accepted: Set<Int> { state.withLock { $0.accepted } }
    /// How many messages were sent.
    public var sent: Int { state.withLock { $0.sent } }
}
