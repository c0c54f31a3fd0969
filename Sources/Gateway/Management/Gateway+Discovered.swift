public import HomeStore
public import JSON

/// `bridge/discovered` (docs/DESIGN.md "Topics"): the accessories seen on the network and not paired with
/// this gateway, retained, published again whenever that list changes.
extension Gateway {
    /// Queues the list as it is now, with discovery: `run()` calls it before `bridge/state` says online,
    /// which tells a consumer that every retained topic is there.
    func publishDiscovered() async {
        guard let discovery = parts.management.management?.discovery else { return }
        retainDiscovered(await discovery.discoveredAccessories())
    }

    /// Publishes the list again on every change, until discovery or the gateway stops.
    func followDiscovered() async {
        guard let discovery = parts.management.management?.discovery else { return }
        for await list in await discovery.discoveredAccessoryChanges() {
            guard !Task.isCancelled, !isStopped else { return }
            if retainDiscovered(list) { flush() }
        }
    }

    /// Queues `list` on `bridge/discovered` unless the broker holds that list already; whether it did.
    @discardableResult
    private func retainDiscovered(_ list: [DiscoveredAccessory]) -> Bool {
        let payload = Array(Self.discoveredJSON(list).description.utf8)
        guard outbox.retained[topics.bridgeDiscovered]?.payload != payload else { return false }
        outbox.retain(topics.bridgeDiscovered, payload: payload, qos: .atLeastOnce)
        return true
    }

    /// The JSON array of `bridge/discovered` (and of the web page's list): per accessory `id`, `name`,
    /// `model` (null when not announced), `category` (a word), `address` (the preferred one, null when none
    /// is usable), `addresses`, `port`, `paired_elsewhere`.
    public static func discoveredJSON(_ list: [DiscoveredAccessory]) -> JSONValue {
        let entries = list.map { accessory -> JSONValue in
            .object([
                "id": .string(accessory.id), "name": .string(accessory.name),
                "model": accessory.model.map(JSONValue.string) ?? .null,
                "category": .string(accessory.category.name),
                "address": accessory.addresses.first.map(JSONValue.string) ?? .null,
                "addresses": .array(accessory.addresses.map(JSONValue.string)), "port": .int(Int64(accessory.port)),
                "paired_elsewhere": .bool(accessory.pairedElsewhere),
            ])
        }
        return .array(entries)
    }
}
