public import Foundation
import HomeModel
import JSON
public import SystemSupport

/// What a backup holds (docs/DESIGN.md "Backup"): the state directory's files that a fresh machine needs to
/// reach every paired accessory without pairing again, byte for byte: `controller.json`, every
/// `pairing-<ID>.json` (its accessory's last address included), `accessories-<ID>.json` (the accessory
/// caches), `profile-<ID>.json` (what was learned of misbehaving accessories), `slugs.json`, `options.json`
/// and `instance.json` (the gateway's instance id, so that the restored gateway is the same owner of its
/// base topic). Not `health.json`, the lock, temporary or moved-aside files.
///
/// Its payload is a JSON object, `{"format":1,"createdBy":"hap2mqtt 0.1.0","created":"…Z","files":{"name":
/// base64,…}}`, which `BackupArchive` encrypts.
public struct StateBackup: Sendable, Hashable {
    /// The files by name.
    public var files: [String: [UInt8]]
    /// The program and version that made it, `hap2mqtt 0.1.0`.
    public var createdBy: String
    /// When it was made, UTC (`2026-12-07T20:00:00Z`).
    public var created: String
    /// The controller identity it holds.
    public let identity: ControllerIdentity
    /// The pairings it holds, sorted by name.
    public let pairings: [Pairing]

    /// The slug map's, saved options' and instance id's files, kept by the gateway (`SlugRegistry`,
    /// `AccessoryOptionsFile`, `InstanceIdentity`).
    static let gatewayFiles: Set<String> = ["slugs.json", "options.json", "instance.json"]
    /// The accessory caches' prefix (`AccessoryCache`).
    static let cachePrefix = "accessories-"
    /// The prefixes of the files kept per accessory server beside its pairing: the caches and the learned
    /// profiles (`AccessoryProfileFile`).
    static let perServerPrefixes = [cachePrefix, AccessoryProfileFile.prefix]
    /// The largest file read for a backup: an accessory cache of a large bridge is some hundred KiB.
    static let maximumFileSize = 16 << 20

    /// Whether a file of this name belongs in a backup. Nothing else is read from an archive, so no name
    /// in it can reach outside the state directory.
    static func belongs(_ name: String) -> Bool {
        if name == PairingStore.identityFileName || gatewayFiles.contains(name) { return true }
        if PairingStore.accessoryPairingID(fromFileName: name) != nil { return true }
        guard let prefix = perServerPrefixes.first(where: name.hasPrefix) else { return false }
        return PairingStore.accessoryPairingID(
            fromFileName: PairingStore.pairingFilePrefix + name.dropFirst(prefix.count)) != nil
    }

    /// The backup of `directory`, made at `date` by `createdBy`.
    /// - Throws: `.nothingToBackUp` without a controller identity; `.unreadable` when a file cannot be read
    ///   or the identity or a pairing is damaged (a backup that silently left one out would lose it).
    public static func collect(from directory: StateDirectory, createdBy: String, date: Date = Date())
        throws(BackupError) -> StateBackup
    {
        var files: [String: [UInt8]] = [:]
        for name in directory.files(withSuffix: ".json") where belongs(name) {
            do {
                if let data = try directory.read(name, maximumSize: maximumFileSize) { files[name] = Array(data) }
            } catch {
                throw .unreadable(reason: "\(error)")
            }
        }
        guard files[PairingStore.identityFileName] != nil else { throw .nothingToBackUp(directory: directory.path) }
        do throws(BackupError) {
            return try StateBackup(
                files: files, createdBy: createdBy, created: UTCTimestamp.string(date, milliseconds: false))
        } catch .damaged(let reason) {
            throw .unreadable(reason: "\(reason) in \(directory.path); fix or remove it, then back up again")
        }
    }

    /// A backup of these files, whose identity and pairings must read.
    /// - Throws: `.damaged` naming the file that does not.
    init(files: [String: [UInt8]], createdBy: String, created: String) throws(BackupError) {
        self.files = files
        self.createdBy = createdBy
        self.created = created
        guard let identityFile = files[PairingStore.identityFileName] else {
            throw .damaged(reason: "it holds no controller identity")
        }
        identity = try Self.decode(identityFile, PairingStore.identityFileName, as: ControllerIdentity.init(json:))
        var pairings: [Pairing] = []
        for (name, bytes) in files where PairingStore.accessoryPairingID(fromFileName: name) != nil {
            let pairing = try Self.decode(bytes, name, as: Pairing.init(json:))
            guard PairingStore.fileName(forAccessory: pairing.accessoryPairingID) == name else {
                throw .damaged(reason: "\(name) holds the pairing of \(pairing.accessoryPairingID)")
            }
            pairings.append(pairing)
        }
        self.pairings = pairings.sorted {
            ($0.displayName.lowercased(), $0.accessoryPairingID) < ($1.displayName.lowercased(), $1.accessoryPairingID)
        }
    }

    /// The value `make` reads from the JSON text `bytes` of the file `name`.
    /// - Throws: `.damaged` naming the file and the field, never a value.
    private static func decode<T>(_ bytes: [UInt8], _ name: String, as make: (JSONValue) throws(JSONFieldError) -> T)
        throws(BackupError) -> T
    {
        guard let json = try? JSONValue(parsing: Data(bytes)) else { throw .damaged(reason: "\(name) is not JSON") }
        do { return try make(json) } catch { throw .damaged(reason: "\(name): \(error)") }
    }

    /// The backup a payload holds.
    /// - Throws: `.newerFormat` for a payload of a newer format, `.damaged` for one that does not read.
    public init(payload: [UInt8]) throws(BackupError) {
        guard let json = try? JSONValue(parsing: Data(payload)), let fields = try? JSONFields(json),
            let format = try? fields.integer("format", as: Int.self)
        else { throw .damaged(reason: "its content is not a backup's") }
        guard format <= BackupArchive.formatVersion else {
            throw .newerFormat(version: format, supported: BackupArchive.formatVersion)
        }
        guard case .object(let members)? = json["files"], let createdBy = try? fields.string("createdBy"),
            let created = try? fields.string("created")
        else { throw .damaged(reason: "its content is not a backup's") }
        var files: [String: [UInt8]] = [:]
        for member in members {
            guard Self.belongs(member.key) else {
                throw .damaged(reason: "it holds a file named \(member.key.jsonQuoted), which no backup holds")
            }
            guard case .string(let text) = member.value, let bytes = Base64.decode(text) else {
                throw .damaged(reason: "the content of \(member.key) is not base64")
            }
            files[member.key] = bytes
        }
        try self.init(files: files, createdBy: createdBy, created: created)
    }

    /// The JSON text `init(payload:)` reads, keys sorted.
    public var payload: [UInt8] {
        var encoded = JSONObject()
        for name in files.keys.sorted() { encoded.append(name, .string(Base64.encode(files[name]!))) }
        let object: JSONObject = [
            "format": JSONValue(BackupArchive.formatVersion),
            "createdBy": .string(createdBy),
            "created": .string(created),
            "files": .object(encoded),
        ]
        return JSONValue.object(object).encoded(sortingKeys: true)
    }
}
