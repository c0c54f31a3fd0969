public import HomeModel

/// One write a caller asks the store for: the characteristic, what its value is to become, and the name
/// its errors give it.
public struct WriteCommand: Sendable, Hashable {
    /// The characteristic to write.
    public var address: CharacteristicAddress
    /// A `/set` payload, a JSON scalar or a typed value; `Characteristic.valueToWrite(for:name:)` makes
    /// it the value to write.
    public var payload: CommandPayload
    /// The characteristic's name in error messages (its topic slug, `brightness_2`); nil for the name of
    /// its type (`brightness`).
    public var name: String?

    /// A command to write `payload` to the characteristic at `address`.
    public init(_ address: CharacteristicAddress, _ payload: CommandPayload, name: String? = nil) {
        self.address = address
        self.payload = payload
        self.name = name
    }
}

/// Writes the store has checked (`HomeStore.check(_:)`) and not queued yet: the requests that passed, and
/// the error of each command that did not. A caller that wants all or nothing queues them
/// (`HomeStore.enqueue(_:completion:)`) only when `failures` is empty.
public struct CheckedWrites: Sendable {
    /// The requests that passed, one per address (the last command for it), in the order given.
    let writes: [CharacteristicWrite]
    /// Why each command that failed its checks was refused.
    public let failures: [CharacteristicAddress: HomeStoreError]
}
