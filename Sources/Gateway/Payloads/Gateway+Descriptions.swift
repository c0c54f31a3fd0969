import HomeModel

extension Gateway {
    /// What `bridge/accessories` holds, as values: one description per accessory the gateway publishes,
    /// in the store's order. For a reader other than MQTT (the web page), so both show the same slugs,
    /// names and availability.
    public func accessoryDescriptions() async -> [AccessoryDescription] {
        let accessories = await store.accessories()
        let reasons = await store.offlineReasons()
        return accessories.compactMap { accessory in
            guard let layout = index.layouts[accessory.id], let entry = published[accessory.id] else { return nil }
            return AccessoryDescription(
                accessory: accessory, layout: layout, reachable: entry.reachable, topics: topics,
                options: options(of: accessory.id), offlineReason: reasons[accessory.id])
        }
    }
}
