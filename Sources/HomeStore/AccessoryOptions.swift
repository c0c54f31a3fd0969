public import HomeModel

/// The options of one accessory saved through `bridge/request/options` (docs/DESIGN.md "Topics"), in the
/// state directory's `options.json`. Each one set wins over the YAML file's `homekit.accessories` entry for
/// that key only; a nil one leaves the YAML file's (or the accessory's own) value.
public struct AccessoryOptions: Sendable, Hashable {
    /// The name shown, and the topic name made from it (`Desk Lamp` → `desk_lamp`).
    public var name: String?
    /// The room's name (Home Assistant's suggested area).
    public var room: String?
    /// True: the accessory has no topics, no discovery configs and takes no commands over MQTT.
    public var exclude: Bool?

    public init(name: String? = nil, room: String? = nil, exclude: Bool? = nil) {
        self.name = name
        self.room = room
        self.exclude = exclude
    }

    /// Whether no option is set.
    public var isEmpty: Bool { name == nil && room == nil && exclude == nil }

    /// Whether the accessory is excluded.
    public var excludes: Bool { exclude == true }

    /// The longest name or room taken, in characters: HAP's limit for a name (and so for a slug,
    /// `Slug.maximumLength` in the Gateway).
    public static let maximumLength = 64
}

/// What a request does to one option: leaves it as it is (the key is absent), removes it (`null`: the
/// YAML file's value, or the accessory's own, applies again), or sets it.
public enum OptionChange<Value: Sendable & Hashable>: Sendable, Hashable {
    case keep
    case remove
    case set(Value)

    /// The option after this change.
    func applied(to value: Value?) -> Value? {
        switch self {
        case .keep: return value
        case .remove: return nil
        case .set(let new): return new
        }
    }
}

/// A change to an accessory's options (`bridge/request/options`
/// `{"accessory":"…","options":{"name":…,"room":…,"exclude":…}}`), one `OptionChange` per option.
public struct AccessoryOptionsChange: Sendable, Hashable {
    public var name: OptionChange<String>
    public var room: OptionChange<String>
    public var exclude: OptionChange<Bool>

    /// The option keys a request may give, in the order the errors name them.
    public static let keys = ["name", "room", "exclude"]

    public init(
        name: OptionChange<String> = .keep, room: OptionChange<String> = .keep, exclude: OptionChange<Bool> = .keep
    ) {
        self.name = name
        self.room = room
        self.exclude = exclude
    }

    /// `options` with this change made.
    public func applied(to options: AccessoryOptions) -> AccessoryOptions {
        AccessoryOptions(
            name: name.applied(to: options.name), room: room.applied(to: options.room),
            exclude: exclude.applied(to: options.exclude))
    }

    /// Checks the values set before anything changes.
    /// - Throws: `ManagementError.invalidRequest` for a name or room that is empty (or only spaces), holds
    ///   a control character (a line break, NUL), or is longer than `AccessoryOptions.maximumLength`
    ///   characters.
    public func validate() throws(ManagementError) {
        for (key, change) in [("name", name), ("room", room)] {
            guard case .set(let text) = change else { continue }
            if text.allSatisfy(\.isWhitespace) {
                throw .invalidRequest("\"\(key)\" must not be empty; null removes the option")
            }
            // Names and rooms go to Home Assistant's device and area names and to lists printed a line each.
            if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw .invalidRequest("\"\(key)\" must not contain line breaks or other control characters")
            }
            if text.count > AccessoryOptions.maximumLength {
                throw .invalidRequest(
                    "\"\(key)\" is \(text.count) characters long; at most \(AccessoryOptions.maximumLength) are taken")
            }
        }
    }
}

/// What `Management.setOptions` did.
public struct AccessoryOptionsResult: Sendable, Hashable {
    /// The accessory.
    public var id: AccessoryID
    /// Its topic slug now.
    public var slug: String
    /// The slug it had, when a new name moved its topics.
    public var previousSlug: String?
    /// Every option saved for it now.
    public var options: AccessoryOptions

    public init(id: AccessoryID, slug: String, previousSlug: String?, options: AccessoryOptions) {
        self.id = id
        self.slug = slug
        self.previousSlug = previousSlug
        self.options = options
    }
}
