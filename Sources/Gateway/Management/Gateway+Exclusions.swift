public import HomeModel

/// Which accessories their saved options exclude (`bridge/request/options` with `"exclude":true`), for the
/// parts beside MQTT that show accessories: an excluded accessory has no topics, so the web page must not
/// show its values either.
extension Gateway {
    /// The accessories excluded now, and a stream that yields the whole set again each time it changes, and
    /// each time an accessory moved to another slug (`rename`, or a new name in its options), which changes
    /// the list as the page shows it (only the newest set waits for a slow reader). The stream ends when
    /// the gateway stops.
    public func exclusions() -> (now: Set<AccessoryID>, changes: AsyncStream<Set<AccessoryID>>) {
        let (changes, continuation) = AsyncStream.makeStream(
            of: Set<AccessoryID>.self, bufferingPolicy: .bufferingNewest(1))
        guard !isStopped else {
            continuation.finish()
            return (excludedAccessories, changes)
        }
        let key = parts.management.exclusionFollowers.add(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.dropExclusionFollower(key) }
        }
        return (excludedAccessories, changes)
    }

    var excludedAccessories: Set<AccessoryID> {
        Set(parts.management.accessoryOptions.lazy.filter { $0.value.excludes }.map(\.key))
    }

    /// Tells the followers the excluded set when it is no longer `before`.
    func sendExclusions(ifChangedFrom before: Set<AccessoryID>) {
        let now = excludedAccessories
        if now != before { parts.management.exclusionFollowers.send(now) }
    }

    private func dropExclusionFollower(_ key: Int) {
        parts.management.exclusionFollowers.remove(key)
    }
}
