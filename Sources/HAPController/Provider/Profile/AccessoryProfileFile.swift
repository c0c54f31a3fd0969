import Foundation
import JSON
import SystemSupport

/// The learned profile of one accessory server (`AccessoryServerProfile`), kept in the state directory
/// beside its pairing (`profile-AA-BB-CC-DD-EE-FF.json`, written atomically by `StateDirectory`), so that a
/// restart does not have to learn again what the accessory does wrong.
///
/// It holds no secrets. Written without fsync, as the accessory cache is: a profile lost in a crash is
/// learned again, and an fsync would hold the provider while the disk is busy.
struct AccessoryProfileFile: Sendable {
    let directory: StateDirectory
    let accessoryPairingID: String

    /// The files' prefix: other than the pairing store's, so that it never takes one for a pairing.
    static let prefix = "profile-"
    /// The largest file read: a profile of a bridge with 150 accessories polled instead of evented is a
    /// few kilobytes.
    static let maximumSize = 1 << 20

    /// `profile-AA-BB-CC-DD-EE-FF.json`.
    var fileName: String {
        Self.prefix
            + PairingStore.fileName(forAccessory: accessoryPairingID).dropFirst(PairingStore.pairingFilePrefix.count)
    }

    /// The stored profile; an empty one when there is none.
    /// - Throws: `StateDirectoryError` when it cannot be read, `JSONError` when it is not JSON.
    func load() throws -> AccessoryServerProfile {
        guard let data = try directory.read(fileName, maximumSize: Self.maximumSize) else {
            return AccessoryServerProfile()
        }
        return AccessoryServerProfile(json: try JSONValue(parsing: data))
    }

    /// Saves `profile`, atomically.
    /// - Throws: `StateDirectoryError` when the file cannot be written.
    func save(_ profile: AccessoryServerProfile) throws(StateDirectoryError) {
        try directory.write(
            Data(profile.json.encoded(sortingKeys: true) + [UInt8(ascii: "\n")]), to: fileName, durable: false)
    }

    /// Deletes the profile (the pairing is gone).
    /// - Throws: `StateDirectoryError` when it exists and cannot be removed.
    func remove() throws(StateDirectoryError) {
        try directory.remove(fileName)
    }
}
