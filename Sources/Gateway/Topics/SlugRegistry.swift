internal import Foundation
public import HomeModel
import JSON
public import Logging
public import SystemSupport

/// The accessory slugs, unique within the gateway and kept stable in the state directory (`slugs.json`),
/// so a rename in the Home app does not move an accessory's topics (docs/DESIGN.md "Identity and names").
///
/// A slug, once given, stays with its accessory id even while the accessory is gone, so an accessory that
/// comes back (a bridge restarted, a reconnect) gets its old topics again.
public struct SlugRegistry: Sendable {
    /// The file in the state directory.
    public static let fileName = "slugs.json"

    private var slugByID: [AccessoryID: String] = [:]
    private var idBySlug: [String: AccessoryID] = [:]
    private let directory: StateDirectory?
    private let logger: Logger
    /// Why the file must not be written this run, when it exists and could not be read or moved aside:
    /// writing would replace the user's slugs with these. New slugs are then kept in memory only, and a
    /// rename is refused with this.
    private var unsavable: String?
    /// Whether the state directory had no slug map when the registry was loaded: a first start, or a
    /// state directory other than the one used before (`Gateway.run`).
    public private(set) var wasAbsent = false

    /// Loads the registry from `directory` (nil: in memory only). A file that is not a JSON object is moved
    /// aside to `slugs.json.corrupt` (`.corrupt.2`, … when that name is taken) and logged to `logger`; one
    /// that cannot be read is left as it is and never written this run. Either way the gateway starts.
    public init(directory: StateDirectory?, logger: Logger) {
        self.directory = directory
        self.logger = logger
        guard let directory else { return }
        let path = directory.url(SlugRegistry.fileName).path
        let data: Data?
        do {
            data = try directory.read(SlugRegistry.fileName)
        } catch {
            unsavable =
                "\(error), so it is left as it is; fix it (the gateway's user must read and write it) or remove it, then restart"
            logger.error(
                "the slug map cannot be read (\(error)); it is left as it is and not written this run: new slugs last until a restart and renames are refused; fix it (the gateway's user must read and write it) or remove it, then restart"
            )
            return
        }
        guard let data else {
            wasAbsent = true
            return
        }
        guard let map = (try? JSONValue(parsing: data))?.objectValue else {
            do {
                let aside = try directory.moveAside(SlugRegistry.fileName)
                logger.error("\(path) is not a JSON object; moved aside to \(aside) and starting a new slug map")
            } catch {
                unsavable = "\(path) is damaged and cannot be moved aside (\(error)); move it away, then restart"
                logger.error(
                    "\(path) is not a JSON object and cannot be moved aside (\(error)); it is left as it is and not written this run: new slugs last until a restart and renames are refused; move it away, then restart"
                )
            }
            return
        }
        // A damaged or impossible entry (edited by hand, or saved by an older version without the length
        // limit) is reported and skipped: its accessory gets a new slug, the others keep theirs.
        for (key, value) in map.dictionary.sorted(by: { $0.key < $1.key }) {
            guard let id = AccessoryID(key) else {
                logger.warning(
                    "\(SlugRegistry.fileName): skipped the entry \(JSONString.quoted(Self.shown(key))): not an accessory id"
                )
                continue
            }
            guard let slug = value.stringValue else {
                logger.warning(
                    "\(SlugRegistry.fileName): skipped the slug of accessory \(id): it is not a string; it gets a new one"
                )
                continue
            }
            if let problem = Self.problem(with: slug) {
                logger.warning(
                    "\(SlugRegistry.fileName): skipped the slug of accessory \(id): \(problem); it gets a new one")
                continue
            }
            if let owner = idBySlug[slug] {
                logger.warning(
                    "\(SlugRegistry.fileName): skipped the slug of accessory \(id): '\(slug)' belongs to accessory \(owner) too; it gets a new one"
                )
                continue
            }
            slugByID[id] = slug
            idBySlug[slug] = id
        }
    }

    /// The slug of accessory `id`; a new accessory gets one made from `name`, unique and not reserved.
    /// The map is saved by `saveIfChanged()`, once for a whole batch of new accessories: saving it for
    /// each one made a start with 1,490 accessories spend most of its time rewriting the file.
    public mutating func slug(for id: AccessoryID, name: String) -> String {
        if let existing = slugByID[id] { return existing }
        let slug = Slug.unique(Slug.make(name)) { idBySlug[$0] != nil || Slug.reserved.contains($0) }
        slugByID[id] = slug
        idBySlug[slug] = id
        hasUnsavedChanges = true
        return slug
    }

    /// Frees the slug of accessory `id`, so that another accessory may take it; saved by `saveIfChanged()`.
    /// Only for an accessory whose pairing was removed: one merely gone keeps its slug, should it come back.
    public mutating func forget(_ id: AccessoryID) {
        guard let slug = slugByID.removeValue(forKey: id) else { return }
        if idBySlug[slug] == id { idBySlug[slug] = nil }
        hasUnsavedChanges = true
    }

    /// Whether slugs were given since the map was last saved.
    public private(set) var hasUnsavedChanges = false

    /// Whether `takeUnsaved()` has a map to write: slugs were given since the last save, and the map is
    /// kept in a file that may be written.
    public var needsSaving: Bool { hasUnsavedChanges && unsavable == nil && directory != nil }

    /// Saves the map if slugs were given since the last save. Call it before their topics are published,
    /// so that topics on the broker always belong to slugs on disk.
    public mutating func saveIfChanged() {
        takeUnsaved()?.write()
    }

    /// The map to save when slugs were given since the last save, for `SlugMapSave.write()` to write
    /// away from the caller's executor (the write ends with `fsync`); nil when none were, when the map
    /// is kept in memory only, or when the file may not be written this run (logged once at start).
    public mutating func takeUnsaved() -> SlugMapSave? {
        guard hasUnsavedChanges else { return nil }
        hasUnsavedChanges = false
        guard unsavable == nil, let directory else { return nil }
        return SlugMapSave(directory: directory, text: encodedMap(), logger: logger)
    }

    /// Every accessory that was ever given a slug here, present or gone.
    public var accessories: Dictionary<AccessoryID, String>.Keys { slugByID.keys }

    /// The accessory that has `slug`, if any.
    public func accessory(forSlug slug: String) -> AccessoryID? { idBySlug[slug] }

    /// The slug accessory `id` has, if any.
    public func slug(of id: AccessoryID) -> String? { slugByID[id] }

    /// The slug a new name would give accessory `id`: made from `name`, with a suffix when another accessory
    /// has it; its own slug when that is what the name makes.
    public func slug(forRenaming id: AccessoryID, to name: String) -> String {
        Slug.unique(Slug.make(name)) { slug in
            Slug.reserved.contains(slug) || (idBySlug[slug].map { $0 != id } ?? false)
        }
    }

    /// Gives accessory `id` the slug `newSlug` and saves the map, on the calling thread (the write ends with
    /// `fsync`: the Gateway writes `mapRenaming(_:to:)` on a thread that may block, then calls
    /// `applyRename(_:to:)`). A rename that is not saved would be undone by the next start, so when the map
    /// cannot be saved the accessory keeps its slug.
    /// - Throws: `GatewayError.invalidSlug` when `newSlug` is not `[a-z0-9_-]`, longer than
    ///   `Slug.maximumLength`, reserved, or taken; `GatewayError.slugMapNotSaved` when the map cannot be
    ///   saved (nothing changed then).
    public mutating func rename(_ id: AccessoryID, to newSlug: String) throws(GatewayError) {
        try mapRenaming(id, to: newSlug)?.writeOrThrow()
        try applyRename(id, to: newSlug)
        hasUnsavedChanges = false
    }

    /// The map as it would be with accessory `id` renamed to `newSlug`, to write before the rename is
    /// applied; nothing changes here. Nil when the registry keeps no file.
    /// - Throws: `GatewayError.invalidSlug` as `rename(_:to:)`; `GatewayError.slugMapNotSaved` when the
    ///   map may not be written this run.
    public func mapRenaming(_ id: AccessoryID, to newSlug: String) throws(GatewayError) -> SlugMapSave? {
        try checkRename(id, to: newSlug)
        if let unsavable { throw .slugMapNotSaved(unsavable) }
        guard let directory else { return nil }
        var renamed = self
        renamed.assign(newSlug, to: id)
        return SlugMapSave(directory: directory, text: renamed.encodedMap(), logger: logger)
    }

    /// Gives accessory `id` the slug `newSlug`, once the map that has it is written
    /// (`mapRenaming(_:to:)`); the map is marked to be written again, with whatever else changed since.
    /// - Throws: `GatewayError.invalidSlug` when another accessory took `newSlug` in the meantime.
    public mutating func applyRename(_ id: AccessoryID, to newSlug: String) throws(GatewayError) {
        try checkRename(id, to: newSlug)
        assign(newSlug, to: id)
        hasUnsavedChanges = true
    }

    /// Throws when accessory `id` cannot be renamed to `newSlug`.
    private func checkRename(_ id: AccessoryID, to newSlug: String) throws(GatewayError) {
        if let problem = Self.problem(with: newSlug) { throw .invalidSlug(Self.shown(newSlug), reason: problem) }
        if let owner = idBySlug[newSlug], owner != id {
            throw .invalidSlug(newSlug, reason: "already used by accessory \(owner)")
        }
    }

    /// Moves accessory `id` to `newSlug` in both maps.
    private mutating func assign(_ newSlug: String, to id: AccessoryID) {
        if let old = slugByID[id] { idBySlug[old] = nil }
        slugByID[id] = newSlug
        idBySlug[newSlug] = id
    }

    /// Why `slug` cannot be an accessory's slug; nil when it can.
    static func problem(with slug: String) -> String? {
        if slug.utf8.count > Slug.maximumLength {
            return "it is \(slug.utf8.count) characters long; a slug has at most \(Slug.maximumLength)"
        }
        if Slug.reserved.contains(slug) {
            return
                "'\(slug)' is reserved for the gateway's own topics (\(Slug.reserved.sorted().map { "'\($0)'" }.joined(separator: ", ")))"
        }
        guard Slug.isValid(slug) else { return "use lower-case letters, digits, '_' and '-' only" }
        return nil
    }

    /// `text` for a log line or an answer: cut after 40 characters, so that a huge value is not echoed.
    static func shown(_ text: String) -> String { text.count > 40 ? text.prefix(40) + "…" : text }

    /// The file's text: one JSON object from accessory id to slug, keys sorted.
    private func encodedMap() -> [UInt8] {
        var map = JSONObject()
        for (id, slug) in slugByID { map.append(id.description, .string(slug)) }
        return JSONValue.object(map).encoded(sortingKeys: true) + [UInt8(ascii: "\n")]
    }
}

/// The slug map as it was when taken (`SlugRegistry.takeUnsaved()`), to be written to `slugs.json` by a
/// thread that may block: the write is atomic and ends with `fsync`.
public struct SlugMapSave: Sendable {
    let directory: StateDirectory
    let text: [UInt8]
    let logger: Logger

    /// Writes the file; a failure is logged (the new slugs then last until a restart).
    public func write() {
        do {
            try writeOrThrow()
        } catch {
            if case .slugMapNotSaved(let why) = error {
                logger.error("cannot save the slug map: \(why); the new slugs last until a restart")
            }
        }
    }

    /// Writes the file.
    /// - Throws: `GatewayError.slugMapNotSaved` naming the cause.
    func writeOrThrow() throws(GatewayError) {
        do {
            try directory.write(Data(text), to: SlugRegistry.fileName)
        } catch {
            throw .slugMapNotSaved("\(error)")
        }
    }
}
