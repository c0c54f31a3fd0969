import HomeModel

/// Where every topic of the published accessories leads (docs/DESIGN.md "Identity and names"): each
/// accessory's slug (kept in the `SlugRegistry`) and `AccessoryLayout`, and the ways back from a topic to
/// what it names: a state topic to its characteristic, an `hs` topic to its hue and saturation, a slug
/// to its accessory.
///
/// The gateway asks it where a command goes and where a value is published; it holds no values.
struct TopicIndex {
    private var slugs: SlugRegistry
    private let scheme: TopicScheme
    /// The layout of every accessory published now.
    private(set) var layouts: [AccessoryID: AccessoryLayout] = [:]
    private var addressByStateTopic: [String: CharacteristicAddress] = [:]
    private var hsByStateTopic: [String: HSTopic] = [:]
    private var hsByAddress: [CharacteristicAddress: HSTopic] = [:]
    private var idBySlug: [String: AccessoryID] = [:]
    /// Accessory servers whose pairing was removed: their accessories' slugs are freed as they go.
    private var unpairedServers: Set<String> = []

    /// Whether the state directory had no slug map at start (`SlugRegistry.wasAbsent`).
    var slugMapWasAbsent: Bool { slugs.wasAbsent }

    /// An empty index whose slugs come from (and go to) `slugs`.
    init(slugs: SlugRegistry, scheme: TopicScheme) {
        self.slugs = slugs
        self.scheme = scheme
    }

    /// Gives the accessory its slug (the one it had, else a new one made from its name) and its layout,
    /// and indexes its topics, in place of what was indexed for it before.
    mutating func add(_ accessory: Accessory) -> AccessoryLayout {
        remove(accessory.id)
        unpairedServers.remove(accessory.id.serverID)
        let slug = slugs.slug(for: accessory.id, name: accessory.name)
        let layout = AccessoryLayout(accessory: accessory, slug: slug, topics: scheme)
        layouts[accessory.id] = layout
        idBySlug[slug] = accessory.id
        for topic in layout.characteristics { addressByStateTopic[topic.stateTopic] = topic.address }
        for hs in layout.hsTopics {
            hsByStateTopic[hs.stateTopic] = hs
            hsByAddress[hs.hue] = hs
            hsByAddress[hs.saturation] = hs
        }
        return layout
    }

    /// Forgets an accessory's topics (its slug stays reserved for it, unless its pairing was removed);
    /// returns its layout.
    @discardableResult
    mutating func remove(_ id: AccessoryID) -> AccessoryLayout? {
        guard let layout = layouts.removeValue(forKey: id) else { return nil }
        // Saved with the next flush, off the store's executor (`Gateway.saveSlugs()`).
        if unpairedServers.contains(id.serverID) { slugs.forget(id) }
        idBySlug[layout.slug] = nil
        for topic in layout.characteristics { addressByStateTopic[topic.stateTopic] = nil }
        for hs in layout.hsTopics {
            hsByStateTopic[hs.stateTopic] = nil
            hsByAddress[hs.hue] = nil
            hsByAddress[hs.saturation] = nil
        }
        return layout
    }

    /// The pairing with accessory server `serverID` was removed: the slugs of its accessories are freed,
    /// at once for those not published, and as each published one is removed (after its topics are
    /// cleared). An accessory reset to factory settings comes back with a new id and takes its old names.
    mutating func forget(server serverID: String) {
        let server = serverID.uppercased()
        unpairedServers.insert(server)
        for id in slugs.accessories.filter({ $0.serverID == server && layouts[$0] == nil }) { slugs.forget(id) }
    }

    /// Every accessory that ever had a slug in this state directory, present or gone: whose topics and
    /// discovery configs on the broker were made by this gateway.
    var knownAccessories: Dictionary<AccessoryID, String>.Keys { slugs.accessories }

    /// The characteristic's topics, when its accessory is published.
    func topic(at address: CharacteristicAddress) -> CharacteristicTopic? {
        layouts[address.accessory]?.byIID[address.iid]
    }

    /// The characteristic whose state topic is `stateTopic` (`<base>/<accessory>/<service>/<characteristic>`).
    func characteristic(stateTopic: String) -> CharacteristicTopic? {
        addressByStateTopic[stateTopic].flatMap(topic(at:))
    }

    /// The combined topic whose state topic is `stateTopic` (`<base>/<accessory>/<service>/hs`).
    func hs(stateTopic: String) -> HSTopic? { hsByStateTopic[stateTopic] }

    /// The combined topic that `address`, a hue or a saturation, belongs to.
    func hs(containing address: CharacteristicAddress) -> HSTopic? { hsByAddress[address] }

    /// The published accessory with this slug.
    func accessory(slug: String) -> AccessoryID? { idBySlug[slug] }

    /// The published accessory a user names by slug (`kitchen_lamp`) or by id (`AA:BB:CC:DD:EE:FF/2`).
    func accessory(named name: String) -> AccessoryID? {
        if let id = idBySlug[name] { return id }
        return AccessoryID(name).flatMap { layouts[$0] == nil ? nil : $0 }
    }

    /// The accessory that has `slug` in the registry, published or not (an excluded one, one gone).
    func registeredAccessory(slug: String) -> AccessoryID? { slugs.accessory(forSlug: slug) }

    /// The slug accessory `id` has in the registry, published or not.
    func registeredSlug(of id: AccessoryID) -> String? { slugs.slug(of: id) }

    /// The slug renaming accessory `id` to `name` gives it (`SlugRegistry.slug(forRenaming:to:)`).
    func slug(forRenaming id: AccessoryID, to name: String) -> String { slugs.slug(forRenaming: id, to: name) }

    /// The slug map with accessory `id` renamed to `newSlug`, to write before `applyRename(_:to:)`
    /// (`SlugRegistry.mapRenaming(_:to:)`).
    /// - Throws: `GatewayError.invalidSlug` when `newSlug` is not `[a-z0-9_-]`, reserved, or taken;
    ///   `.slugMapNotSaved` when the map may not be written this run.
    func mapRenaming(_ id: AccessoryID, to newSlug: String) throws(GatewayError) -> SlugMapSave? {
        try slugs.mapRenaming(id, to: newSlug)
    }

    /// Gives accessory `id` the slug `newSlug` in the registry, once the map that has it is written;
    /// `add(_:)` then gives it its new layout.
    /// - Throws: `GatewayError.invalidSlug` when another accessory took `newSlug` in the meantime.
    mutating func applyRename(_ id: AccessoryID, to newSlug: String) throws(GatewayError) {
        try slugs.applyRename(id, to: newSlug)
    }

    /// Saves the slugs given since the last save; called before their topics are published, so that no
    /// topic reaches the broker under a slug the state directory does not hold.
    mutating func saveSlugs() {
        slugs.saveIfChanged()
    }

    /// Whether slugs were given since the last save that are to be written (`SlugRegistry.needsSaving`).
    var hasUnsavedSlugs: Bool { slugs.needsSaving }

    /// The slugs given since the last save, to be written away from the store's executor
    /// (`SlugRegistry.takeUnsaved()`).
    mutating func takeUnsavedSlugs() -> SlugMapSave? { slugs.takeUnsaved() }
}
