import HomeModel

/// What `Management` asks of the running gateway.
extension Gateway {
    /// The accessory a topic slug or an accessory id (`AA:BB:CC:DD:EE:FF/1`) names, when the gateway
    /// publishes it.
    func accessoryID(named name: String) -> AccessoryID? {
        index.accessory(named: name)
    }
}
