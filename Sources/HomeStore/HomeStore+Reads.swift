public import HomeModel
import SystemSupport

/// Reads and identify, routed to the owning provider.
extension HomeStore {
    /// Reads characteristics from their accessories (one request per provider, all at once), stores the
    /// values and delivers each, changed or not, to the subscribers as `.valueChanged(source: .read)`
    /// before it returns: a read is asked for by a user who wants to see the value (`/get`). A result of
    /// `.success(nil)` means the accessory sent no value; the stored value is then kept.
    ///
    /// Per address, the errors are: `.notReady`, `.unknownAccessory`, `.unknownCharacteristic`,
    /// `.unreachable`, `.readRefused(-70405)` for a characteristic without `pr`, and the provider's errors
    /// (`.readRefused` with the accessory's status, `.timedOut` after `writeTimeout`, `.failed`).
    public func read(_ addresses: [CharacteristicAddress]) async
        -> [CharacteristicAddress: Result<CharacteristicValue?, HomeStoreError>]
    {
        var results: [CharacteristicAddress: Result<CharacteristicValue?, HomeStoreError>] = [:]
        var groups: [Int: [CharacteristicAddress]] = [:]
        for address in Set(addresses) {
            do throws(HomeStoreError) {
                let (entry, characteristic) = try usableCharacteristic(address)
                guard characteristic.isReadable else { throw HomeStoreError.readRefused(.writeOnlyCharacteristic) }
                groups[entry.provider, default: []].append(address)
            } catch {
                results[address] = .failure(error)
            }
        }
        let timeout = configuration.writeTimeout
        for (slot, list) in groups { counts[slot, default: ProviderCounts()].reads += list.count }
        let requests = groups.map { (providers[$0.key].provider, $0.value.sorted()) }
        let answers = await withTaskGroup(
            of: ([CharacteristicAddress], [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]?).self
        ) { group in
            for (provider, list) in requests {
                group.addTask { (list, await withDeadline(timeout, { await provider.read(list) })) }
            }
            var all:
                [([CharacteristicAddress], [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]?)] = []
            for await answer in group { all.append(answer) }
            return all
        }
        for (list, answer) in answers {
            for address in list {
                switch answer?[address] {
                case .success(let value)?: results[address] = .success(store(read: value, at: address))
                case .failure(let error)?:
                    results[address] = .failure(
                        HomeStoreError(reading: error, accessory: address.accessory, timeout: timeout))
                case nil:
                    results[address] = .failure(
                        answer == nil
                            ? .timedOut(seconds: timeout.inSeconds)
                            : .failed("the accessory sent no value for \(address)"))
                }
            }
        }
        flush()
        return results
    }

    /// Stores a value read from an accessory; returns it in its format's normal form.
    private func store(read value: CharacteristicValue?, at address: CharacteristicAddress) -> CharacteristicValue? {
        guard let value, let entry = entries[address.accessory], let location = entry.locations[address.iid] else {
            return value
        }
        setValue(value, at: address, location, source: .read)
        return entries[address.accessory]?.value(at: location)
    }

    /// Asks an accessory to identify itself (blink, beep).
    /// - Throws: `.notReady`, `.unknownAccessory`, `.unreachable`, and the provider's errors (`.status`,
    ///   `.timedOut` after `writeTimeout`, `.failed`).
    public func identify(_ id: AccessoryID) async throws(HomeStoreError) {
        let entry = try usableAccessory(id)
        let provider = providers[entry.provider].provider
        let timeout = configuration.writeTimeout
        let outcome: AccessoryError?? = await withDeadline(timeout) { () async -> AccessoryError? in
            do throws(AccessoryError) {
                try await provider.identify(id)
                return nil
            } catch {
                return error
            }
        }
        switch outcome {
        case nil: throw .timedOut(seconds: timeout.inSeconds)
        case .some(nil): return
        case .some(let error?): throw HomeStoreError(error, accessory: id, timeout: timeout)
        }
    }
}
