public import HomeModel

/// How a write that failed `.unconfirmed` turned out, once the accessory answered again and the value was
/// read back (docs/DESIGN.md "Writes"): the writer's second answer.
public struct WriteSettlement: Sendable, Hashable {
    /// The characteristic written.
    public var address: CharacteristicAddress
    /// The value the write sent.
    public var written: CharacteristicValue
    /// The value read back, in the characteristic's normal form (nil when the accessory gave none).
    public var value: CharacteristicValue?
    /// Whether the value read back is the one written: the accessory carried the write out (or holds
    /// that value for another reason, which comes to the same for the writer).
    public var applied: Bool

    public init(
        address: CharacteristicAddress, written: CharacteristicValue, value: CharacteristicValue?, applied: Bool
    ) {
        self.address = address
        self.written = written
        self.value = value
        self.applied = applied
    }
}

/// Gets a `WriteSettlement`, once, on the store's executor.
public typealias WriteSettlementHandler = @Sendable (WriteSettlement) -> Void

/// The writers waiting for the settlement of writes that failed `.unconfirmed`, per characteristic, until
/// the provider reads the values back (`ProviderEvent.writesSettled`). A later write to the characteristic
/// that the accessory answers ends the wait: what it holds then says nothing about the older write.
struct UnsettledWrites {
    private struct Waiting {
        let written: CharacteristicValue
        let handler: WriteSettlementHandler
    }

    /// The most writers kept waiting; older ones beyond it are dropped (an accessory that never comes back
    /// must not grow memory without bound).
    static let limit = 256

    private var waiting: [CharacteristicAddress: [Waiting]] = [:]
    private var count = 0

    /// `handler` waits for the read-back of the unconfirmed write of `written` to `address`.
    mutating func add(
        _ address: CharacteristicAddress, written: CharacteristicValue, handler: @escaping WriteSettlementHandler
    ) {
        guard count < Self.limit else { return }
        waiting[address, default: []].append(Waiting(written: written, handler: handler))
        count += 1
    }

    /// The writers of `address`, with the values they wrote, removed.
    mutating func take(_ address: CharacteristicAddress) -> [(
        written: CharacteristicValue, handler: WriteSettlementHandler
    )] {
        guard let taken = waiting.removeValue(forKey: address) else { return [] }
        count -= taken.count
        return taken.map { ($0.written, $0.handler) }
    }

    /// Forgets every writer of `accessory` (it is gone).
    mutating func forget(_ accessory: AccessoryID) {
        for address in waiting.keys where address.accessory == accessory { _ = take(address) }
    }
}

/// The store's bookkeeping of writes beyond their queues: the numbers of the drain tasks, and the writers
/// waiting for the settlement of unconfirmed writes.
struct WriteBook {
    /// The number of the last drain task started (`HomeStore+Sending.swift`).
    var nextDrain = 0
    var unsettled = UnsettledWrites()
}
