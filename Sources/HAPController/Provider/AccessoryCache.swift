import Foundation
import HomeModel
import HomeStore
import SystemSupport

/// The last `GET /accessories` body of one accessory server, kept in the state directory beside its
/// pairing (`accessories-AA-BB-CC-DD-EE-FF.json`, written atomically by `StateDirectory`), so that when the
/// gateway starts while the accessory is down its accessories still appear, offline, instead of not at
/// all.
///
/// The body is kept as the accessory sent it and read back with the same reader. It holds no secrets: the
/// accessories' structure, names and the values at the time.
struct AccessoryCache: Sendable {
    let directory: StateDirectory
    let accessoryPairingID: String

    /// `accessories-AA-BB-CC-DD-EE-FF.json`: the pairing file's name with another prefix, so that the
    /// pairing store never takes it for a pairing.
    var fileName: String {
        "accessories-"
            + PairingStore.fileName(forAccessory: accessoryPairingID).dropFirst(PairingStore.pairingFilePrefix.count)
    }

    /// Saves `body` (a `/accessories` answer), atomically but without fsync, unless the file already
    /// holds the same bytes: every sync saves, and an accessory that reconnects often mostly sends the same
    /// list, whose rewrite would only wear an SD card. A cache lost in a crash costs only the offline list
    /// at the next start (a damaged one is ignored with a warning). An fsync here held a thread of the
    /// store's executor for seconds whenever the disk was busy.
    /// - Throws: `StateDirectoryError` when the file cannot be written.
    func save(_ body: [UInt8]) throws(StateDirectoryError) {
        // An unreadable old file is simply replaced.
        if let old = try? directory.read(fileName), old.elementsEqual(body) { return }
        try directory.write(Data(body), to: fileName, durable: false)
    }

    /// The cached accessories, with the values the accessory reported then removed except those of the
    /// AccessoryInformation service (name, manufacturer, model, serial, firmware), which do not change
    /// while it is away: an offline accessory's state is unknown, and a stale value must not be published
    /// as if it were current. Nil when there is no cache.
    /// - Throws: `StateDirectoryError` when it cannot be read, `HAPModelError` when it is not an
    ///   accessory list.
    func load() throws -> [Accessory]? {
        guard let data = try directory.read(fileName) else { return nil }
        let list = try HAPAccessoryList(body: Array(data), serverID: accessoryPairingID)
        return list.accessories.map { accessory in
            var accessory = accessory
            for s in accessory.services.indices where accessory.services[s].type != .Service.accessoryInformation {
                for c in accessory.services[s].characteristics.indices {
                    accessory.services[s].characteristics[c].value = nil
                }
            }
            return accessory
        }
    }

    /// Deletes the cache (the pairing is gone).
    /// - Throws: `StateDirectoryError` when it exists and cannot be removed.
    func remove() throws(StateDirectoryError) {
        try directory.remove(fileName)
    }
}
