public import HomeStore

/// The accessories seen and not paired with this gateway, for the other parts (`bridge/discovered`, the
/// web page) through `AccessoryDiscovery`.
extension HAPDiscovery: AccessoryDiscovery {
    /// How long the answer of `pairedIDs` is reused: the pairings change rarely, announcements may come
    /// by the thousand.
    static let pairedIDLifetime: Duration = .seconds(2)

    public func discoveredAccessories() -> [DiscoveredAccessory] {
        let paired = currentPairedIDs()
        var newest: [String: HAPAdvertisement] = [:]
        for advertisement in recentFirst where !paired.contains(advertisement.id) && newest[advertisement.id] == nil {
            newest[advertisement.id] = advertisement
        }
        return newest.values.map { advertisement in
            DiscoveredAccessory(
                id: advertisement.id, name: advertisement.name, model: advertisement.model,
                category: advertisement.category,
                addresses: advertisement.addresses, port: advertisement.port, pairedElsewhere: advertisement.isPaired)
        }
        .sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    public func discoveredAccessoryChanges() -> AsyncStream<[DiscoveredAccessory]> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [DiscoveredAccessory].self, bufferingPolicy: .bufferingNewest(1))
        guard !stopped else {
            continuation.finish()
            return stream
        }
        let number = (list.subscribers.keys.max() ?? -1) + 1
        list.subscribers[number] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeListSubscriber(number) }
        }
        continuation.yield(discoveredAccessories())
        return stream
    }

    private func removeListSubscriber(_ number: Int) { list.subscribers[number] = nil }

    /// Something the list is made of changed: it is sent after `Limits.listDelay`, with whatever else
    /// changed meanwhile, and only when it differs from the last one sent.
    func listChanged() {
        guard list.update == nil, !list.subscribers.isEmpty else { return }
        let delay = limits.listDelay
        list.update = Task {
            try? await Task.sleep(for: delay)
            self.sendList()
        }
    }

    private func sendList() {
        list.update = nil
        guard !stopped else { return }
        let current = discoveredAccessories()
        guard current != list.last else { return }
        list.last = current
        for continuation in list.subscribers.values { continuation.yield(current) }
    }

    func finishListSubscribers() {
        list.update?.cancel()
        list.update = nil
        for continuation in list.subscribers.values { continuation.finish() }
        list.subscribers = [:]
    }

    /// `pairedIDs()`, asked at most every `pairedIDLifetime`, upper-case.
    func currentPairedIDs() -> Set<String> {
        let now = ContinuousClock.now
        if let cache = list.pairedIDCache, now - cache.at < Self.pairedIDLifetime { return cache.ids }
        let ids = Set(pairedIDs().map { $0.uppercased() })
        list.pairedIDCache = (ids, now)
        return ids
    }
}
