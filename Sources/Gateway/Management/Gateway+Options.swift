import HomeModel
import HomeStore
import JSON

/// The gateway's part of the accessories' options (`Management.setOptions`, `bridge/request/options`):
/// an excluded accessory has no topics and no discovery configs, and its commands are refused with a
/// clear error; a new name moves the topics; the options show in `bridge/accessories` and `bridge/info`.
/// Names and rooms themselves are the store's (`HomeStore.setOptionOverride`), so that every part shows
/// the same.
extension Gateway {
    /// Whether accessory `id` is excluded by its saved options.
    func isExcluded(_ id: AccessoryID) -> Bool {
        parts.management.accessoryOptions[id]?.excludes ?? false
    }

    /// Takes the options saved by an earlier run, before `run()`: the store places the accessories with
    /// their names and rooms, and excluded ones are never published.
    func takeSavedOptions(_ all: [AccessoryID: AccessoryOptions]) async {
        let before = excludedAccessories
        parts.management.accessoryOptions = all
        sendExclusions(ifChangedFrom: before)
        await store.setOptionOverrides(all.mapValues { AccessoryOverride(name: $0.name, room: $0.room) })
    }

    /// The accessory an options request names: a published accessory by slug or id, an excluded one by the
    /// slug it keeps in the state directory or by id; nil when the store has no such accessory.
    func optionsTarget(named name: String) async -> AccessoryID? {
        guard let id = index.accessory(named: name) ?? index.registeredAccessory(slug: name) ?? AccessoryID(name)
        else { return nil }
        return await store.accessory(id) == nil ? nil : id
    }

    /// Applies accessory `id`'s options `options` (already saved) at once. With `renaming`, its slug becomes
    /// the one made from its name now (an option removed: the YAML file's name, or its own), moving its
    /// topics. Then `bridge/accessories` and `bridge/info` are published again.
    /// - Returns: its slug now, and the one it had when it moved.
    /// - Throws: `ManagementError.failed` when the topics cannot move (the options are applied otherwise).
    func applyOptions(_ options: AccessoryOptions, to id: AccessoryID, renaming: Bool) async throws(ManagementError)
        -> (slug: String, from: String?)
    {
        let wasExcluded = isExcluded(id)
        let before = excludedAccessories
        parts.management.accessoryOptions[id] = options.isEmpty ? nil : options
        // The store reports the new name or room as `.accessoryUpdated`, which republishes the accessory (its
        // discovery configs with it) unless it is excluded.
        await store.setOptionOverride(AccessoryOverride(name: options.name, room: options.room), for: id)
        if options.excludes, !wasExcluded, let name = published[id]?.name, let slug = unregister(id) {
            emit(.accessoryRemoved(id: id, slug: slug, name: name))
            logger.info("accessory \(name) is excluded by its options; its topics are cleared", ["accessory": "\(id)"])
        }
        var from: String?
        var failure: ManagementError?
        if renaming, let accessory = await store.accessory(id) {
            let old = index.registeredSlug(of: id)
            let new = index.slug(forRenaming: id, to: accessory.name)
            if published[id] != nil {
                switch await moveTopics(of: id, to: new) {
                case .success(let moved): from = moved == new ? nil : moved
                case .failure(.slugMapNotSaved(let why)):
                    failure = .failed("the options are saved; \(GatewayError.slugMapNotSaved(why))")
                case .failure(let error): failure = .failed("the topics stay where they are: \(error)")
                }
            } else if old != new {
                // Excluded: only the slug it comes back under changes.
                do throws(GatewayError) {
                    try await renameSlug(id, to: new)
                    from = old
                } catch .slugMapNotSaved(let why) {
                    failure = .failed("the options are saved; \(GatewayError.slugMapNotSaved(why))")
                } catch {
                    failure = .failed("the topic name stays as it is: \(error)")
                }
            }
        }
        if !options.excludes, wasExcluded, let accessory = await store.accessory(id) {
            register(accessory, reachable: await store.isReachable(id))
            emit(.accessoryAdded(id: id, slug: index.layouts[id]?.slug ?? "", name: accessory.name))
            logger.info("accessory \(accessory.name) is no longer excluded by its options", ["accessory": "\(id)"])
        }
        await publishAccessoryList()
        outbox.retain(topics.bridgeInfo, bridgeInfoJSON(homes: await store.homes), qos: .atLeastOnce)
        flush()
        // Last, so that a follower that reloads its list finds the accessory's topics already gone or back.
        sendExclusions(ifChangedFrom: before)
        if let failure { throw failure }
        return (index.registeredSlug(of: id) ?? "", from)
    }

    /// The excluded accessory a command topic leads to, by the slug it keeps: its slug, or nil.
    func excludedSlug(of command: TopicScheme.Command) -> String? {
        let slug: String
        switch command {
        case .set(let state), .get(let state):
            // By UTF-8 bytes when the base is ASCII (a character walk was a measurable part of every
            // `/set`): the state topic starts with the base's bytes and a `/` then, as `command(for:)`
            // found them.
            if topics.base.utf8.allSatisfy({ $0 < 0x80 }), state.utf8.allSatisfy({ $0 < 0x80 }) {
                let rest = state.utf8.dropFirst(topics.base.utf8.count + 1)
                slug = String(Substring(rest.prefix { $0 != UInt8(ascii: "/") }))
            } else {
                let rest = state.dropFirst(topics.base.count + 1)
                slug = String(rest.prefix { $0 != "/" })
            }
        case .accessorySet(let accessory): slug = accessory
        case .bridgeRequest, .groupSet: return nil
        }
        guard index.accessory(slug: slug) == nil, let id = index.registeredAccessory(slug: slug), isExcluded(id) else {
            return nil
        }
        return slug
    }

    /// `"options"` of `bridge/info`: every accessory's saved options, by accessory id.
    var savedOptionsJSON: JSONValue {
        var entries = JSONObject()
        for (id, options) in parts.management.accessoryOptions.sorted(by: { $0.key < $1.key }) {
            entries.append(id.description, options.jsonValue)
        }
        return .object(entries)
    }
}
