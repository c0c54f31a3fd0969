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

    /// Loads the registry from `directory` (nil: in memory only). A corrupt file is moved aside to
    /// `slugs.json.corrupt` and logged to `logger`, never overwritten in place.
    public init(directory: StateDirectory?, logger: Logger) {
        self.directory = directory
        self.logger = logger
        guard let directory else { return }
        do {
            guard let data = try directory.read(SlugRegistry.fileName) else { return }
            guard let map = Self.map(from: data) else {
                logger.error(
                    "\(directory.url(SlugRegistry.fileName).path) is not valid JSON; moved aside to slugs.json.corrupt and starting a new slug map"
                )
                try? directory.write(data, to: SlugRegistry.fileName + ".corrupt")
                try? directory.remove(SlugRegistry.fileName)
                return
            }
            // A damaged or impossible entry (edited by hand, or saved by an older version without the length
            // limit) is reported and skipped: its accessory gets a new slug, and the gateway starts.
            for (key, slug) in map.sorted(by: { $0.key < $1.key }) {
                guard let id = AccessoryID(key) else {
                    logger.warning(
                        "\(SlugRegistry.fileName): skipped the entry \(JSONString.quoted(Self.shown(key))): not an accessory id"
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
        } catch {
            logger.error("cannot read the slug map: \(error)")
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

    /// Whether slugs were given since the map was last saved.
    public private(set) var hasUnsavedChanges = false

    /// Saves the map if slugs were given since the last save. Call it before their topics are published,
    /// so that topics on the broker always belong to slugs on disk.
    public mutating func saveIfChanged() {
        guard hasUnsavedChanges else { return }
        save()
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

    /// Gives accessory `id` the slug `newSlug`.
    /// - Throws: `GatewayError.invalidSlug` when `newSlug` is not `[a-z0-9_-]`, longer than
    ///   `Slug.maximumLength`, reserved, or taken.
    public mutating func rename(_ id: AccessoryID, to newSlug: String) throws(GatewayError) {
        if let problem = Self.problem(with: newSlug) { throw .invalidSlug(Self.shown(newSlug), reason: problem) }
        if let owner = idBySlug[newSlug], owner != id {
            throw .invalidSlug(newSlug, reason: "already used by accessory \(owner)")
        }
        if let old = slugByID[id] { idBySlug[old] = nil }
        slugByID[id] = newSlug
        idBySlug[newSlug] = id
        save()
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

    /// The file's map of accessory id to slug; nil when `data` is not a JSON object of strings.
    private static func map(from data: Data) -> [String: String]? {
        guard let object = (try? JSONValue(parsing: data))?.objectValue else { return nil }
        var map: [String: String] = [:]
        for member in object {
            guard let slug = member.value.stringValue else { return nil }
            map[member.key] = slug
        }
        return map
    }

    /// `text` for a log line or an answer: cut after 40 characters, so that a huge value is not echoed.
    static func shown(_ text: String) -> String { text.count > 40 ? text.prefix(40) + "…" : text }

    private mutating func save() {
        hasUnsavedChanges = false
        guard let directory else { return }
        var map = JSONObject()
        for (id, slug) in slugByID { map.append(id.description, .string(slug)) }
        do {
            let text = JSONValue.object(map).encoded(sortingKeys: true) + [UInt8(ascii: "\n")]
            try directory.write(Data(text), to: SlugRegistry.fileName)
        } catch {
            logger.error("cannot save the slug map: \(error)")
        }
    }
}
