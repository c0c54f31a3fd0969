import Foundation
import JSON
public import SystemSupport

/// The controller's identity and its pairings, as files in the state directory (docs/DESIGN.md
/// "Configuration and files"), each written atomically with mode 0600 by `StateDirectory`:
///
/// - `controller.json`: this controller's pairing id and Ed25519 seed (`ControllerIdentity`), created once
///   on first use and never replaced;
/// - `pairing-<accessory id>.json` (e.g. `pairing-AA-BB-CC-DD-EE-FF.json`), one per accessory server: its
///   pairing id, long-term public key, host, port and name, and for a pairing taken over from another
///   controller that keeps that controller's identity, its keys (`Pairing`).
///
/// Loading never deletes or rewrites a file it cannot read: a damaged pairing file is reported and
/// skipped, a damaged identity file is an error (a new identity would orphan every pairing), and so is a
/// missing one while pairing files exist.
public struct PairingStore: Sendable {
    /// The directory the files are in.
    public let directory: StateDirectory

    /// The identity file's name.
    public static let identityFileName = "controller.json"
    /// Pairing files start with this and end with `pairingFileSuffix`.
    public static let pairingFilePrefix = "pairing-"
    /// Pairing files end with this.
    public static let pairingFileSuffix = ".json"

    /// The store in `directory`.
    public init(directory: StateDirectory) { self.directory = directory }

    /// What `loadPairings()` found: the readable pairings, sorted by name, and the files it skipped.
    public struct Contents: Sendable, Hashable {
        /// The pairings, sorted by `displayName` (case-insensitive).
        public var pairings: [Pairing]
        /// Files that could not be read, kept as they are.
        public var problems: [PairingStoreError]
    }

    /// The stored identity; nil when there is none yet.
    /// - Throws: `PairingStoreError.identityUnreadable` when `controller.json` exists but cannot be read
    ///   as an identity, or cannot be read at all.
    public func loadIdentity() throws(PairingStoreError) -> ControllerIdentity? {
        let file = path(of: Self.identityFileName)
        do throws(PairingStoreError) {
            guard let data = try read(Self.identityFileName) else { return nil }
            return try decode(from: data, file: Self.identityFileName, as: ControllerIdentity.init(json:))
        } catch .corruptFile(_, let reason) {
            throw .identityUnreadable(file: file, reason: "damaged: \(reason)")
        } catch .io(_, let reason) {
            throw .identityUnreadable(file: file, reason: reason)
        } catch {
            throw error
        }
    }

    /// The stored identity, or a new one that is saved first (on first use: while there are no pairing
    /// files).
    /// - Throws: as `loadIdentity()`; `.identityMissing` when there is none but pairing files exist;
    ///   `.io` when the new identity cannot be saved, `.crypto` when no key can be made.
    public func identity() throws(PairingStoreError) -> ControllerIdentity {
        if let identity = try loadIdentity() { return identity }
        // Pairings made with a lost identity stay unusable with a new one, and a pair with a new one makes a
        // pairing the old identity cannot use once it is restored: one of the two would be lost for good.
        let pairingFiles = directory.files(withSuffix: Self.pairingFileSuffix).filter {
            $0.hasPrefix(Self.pairingFilePrefix)
        }
        guard pairingFiles.isEmpty else {
            throw .identityMissing(file: path(of: Self.identityFileName), pairings: pairingFiles.count)
        }
        let identity: ControllerIdentity
        do {
            identity = try ControllerIdentity.generate()
        } catch {
            throw .crypto(error)
        }
        try write(identity.json, to: Self.identityFileName)
        return identity
    }

    /// Every pairing file's pairing. Files that cannot be read are listed in `problems` and left alone.
    public func loadPairings() -> Contents {
        var pairings: [Pairing] = []
        var problems: [PairingStoreError] = []
        for file in directory.files(withSuffix: Self.pairingFileSuffix) where file.hasPrefix(Self.pairingFilePrefix) {
            do throws(PairingStoreError) {
                guard let data = try read(file) else { continue }
                let pairing = try decode(from: data, file: file, as: Pairing.init(json:))
                // A file holds the pairing its name says; anything else was edited by hand or mixed up,
                // and taking it for another accessory would drop this one's topics.
                guard Self.fileName(forAccessory: pairing.accessoryPairingID) == file else {
                    throw .corruptFile(
                        file: path(of: file),
                        reason:
                            "its accessoryPairingID \(pairing.accessoryPairingID) belongs in \(Self.fileName(forAccessory: pairing.accessoryPairingID))"
                    )
                }
                pairings.append(pairing)
            } catch {
                problems.append(error)
            }
        }
        pairings.sort {
            ($0.displayName.lowercased(), $0.accessoryPairingID) < ($1.displayName.lowercased(), $1.accessoryPairingID)
        }
        return Contents(pairings: pairings, problems: problems)
    }

    /// The pairing with the accessory `accessoryPairingID` (any case), read from its file; nil when there
    /// is none.
    /// - Throws: `PairingStoreError` when the file cannot be read or is damaged.
    public func pairing(accessoryPairingID: String) throws(PairingStoreError) -> Pairing? {
        let file = Self.fileName(forAccessory: accessoryPairingID)
        guard let data = try read(file) else { return nil }
        return try decode(from: data, file: file, as: Pairing.init(json:))
    }

    /// Writes `pairing` to its file (replacing the accessory's earlier pairing, if any).
    /// - Throws: `PairingStoreError.io`.
    public func save(_ pairing: Pairing) throws(PairingStoreError) {
        try write(pairing.json, to: Self.fileName(forAccessory: pairing.accessoryPairingID))
    }

    /// Deletes the file of the pairing with the accessory `accessoryPairingID`; nothing when there is none.
    /// - Throws: `PairingStoreError.io`.
    public func remove(accessoryPairingID: String) throws(PairingStoreError) {
        let file = Self.fileName(forAccessory: accessoryPairingID)
        do {
            try directory.remove(file)
        } catch {
            throw PairingStoreError(error)
        }
    }

    /// `pairing-AA-BB-CC-DD-EE-FF.json` for `aa:bb:cc:dd:ee:ff`: upper case, every character other than a
    /// letter or digit replaced by `-`, so any id gives a plain file name.
    public static func fileName(forAccessory accessoryPairingID: String) -> String {
        let safe = accessoryPairingID.uppercased().unicodeScalars.map { scalar in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) ? Character(scalar) : "-"
        }
        return pairingFilePrefix + String(safe) + pairingFileSuffix
    }

    /// The accessory pairing id a pairing file is named for, `AA:BB:CC:DD:EE:FF` for
    /// `pairing-AA-BB-CC-DD-EE-FF.json` (the inverse of `fileName(forAccessory:)` for HAP's ids); nil for
    /// any other name.
    public static func accessoryPairingID(fromFileName file: String) -> String? {
        guard file.hasPrefix(pairingFilePrefix), file.hasSuffix(pairingFileSuffix) else { return nil }
        let id = String(file.dropFirst(pairingFilePrefix.count).dropLast(pairingFileSuffix.count))
            .replacingOccurrences(of: "-", with: ":")
        return !id.isEmpty && fileName(forAccessory: id) == file ? id : nil
    }

    /// The full path of a file in the store, for messages.
    public func path(of file: String) -> String { directory.url(file).path }

    /// The largest pairing or identity file read, in bytes: they hold a few hundred (ids, keys, a host
    /// name), and the pairing files are read again every few seconds while `run` runs.
    static let maximumFileSize = 64 * 1024

    private func read(_ file: String) throws(PairingStoreError) -> Data? {
        do {
            return try directory.read(file, maximumSize: Self.maximumFileSize)
        } catch {
            throw PairingStoreError(error)
        }
    }

    /// The value `make` reads from the JSON text `data` of `file`.
    /// - Throws: `PairingStoreError.corruptFile` with a reason that names the field, never its value.
    func decode<T>(
        from data: Data, file: String, as make: (JSONValue) throws(JSONFieldError) -> T
    ) throws(PairingStoreError) -> T {
        let json: JSONValue
        do { json = try JSONValue(parsing: data) } catch {
            throw .corruptFile(file: path(of: file), reason: "not JSON")
        }
        do { return try make(json) } catch { throw .corruptFile(file: path(of: file), reason: error.description) }
    }

    /// Writes `json` to `file` atomically (mode 0600), keys sorted, with a final newline.
    /// - Throws: `PairingStoreError.io`.
    func write(_ json: JSONValue, to file: String) throws(PairingStoreError) {
        do {
            try directory.write(Data(json.encoded(sortingKeys: true) + [UInt8(ascii: "\n")]), to: file)
        } catch {
            throw PairingStoreError(error)
        }
    }
}

extension Pairing {
    /// The name to show and to find the pairing by: its `name`, else the accessory's pairing id.
    public var displayName: String { name ?? accessoryPairingID }
}
