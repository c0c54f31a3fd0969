import HomeModel
import HomeStore
import JSON

/// Changing the stored scenes and groups (docs/scenes-and-groups.md): one change at a time, each saved to
/// `scenes.json` before it takes effect, off the store's executor (the write ends with `fsync`).
extension Gateway {
    /// Runs `body` when no other change of the scenes and groups runs, so that each starts from what the
    /// one before saved.
    func changingScenes<T>(_ body: () async -> T) async -> T {
        while let earlier = parts.scenes.saving { await earlier.value }
        let (done, finished) = AsyncStream<Void>.makeStream()
        let mine = Task { for await _ in done {} }
        parts.scenes.saving = mine
        defer {
            finished.finish()
            if parts.scenes.saving == mine { parts.scenes.saving = nil }
        }
        return await body()
    }

    /// Saves `scenes` and `groups` and then makes them the part's (and republishes the lists); on failure
    /// nothing changes. Called within `changingScenes`.
    func commitScenes(_ scenes: [Scene], _ groups: [DeviceGroup]) async -> GatewayError? {
        if let damage = parts.scenes.damage { return .invalidPayload(damage) }
        if let file = parts.scenes.file {
            let outcome = await Task.detached { () -> GatewayError? in
                do throws(GatewayError) {
                    try file.save(scenes: scenes, groups: groups)
                    return nil
                } catch {
                    return error
                }
            }.value
            if let outcome { return outcome }
        }
        let removed = Set(parts.scenes.scenes.map(\.slug)).subtracting(scenes.map(\.slug))
        parts.scenes.scenes = scenes
        parts.scenes.groups = groups
        publishSceneList()
        publishSceneDiscovery(removed: removed)
        publishGroupList()
        return nil
    }

    /// `bridge/scenes`, retained: every scene's summary.
    func publishSceneList() {
        let list = parts.scenes.scenes.map { $0.summary(slugs: { self.index.layouts[$0]?.slug }) }
        outbox.retain(topics.bridgeScenes, JSONValue.array(list).description, qos: .atLeastOnce)
    }

    /// The scene a request names by `"scene"` (its name or slug), or why there is none.
    func namedScene(_ request: JSONObject) -> Result<Scene, GatewayError> {
        Self.named(request, "scene", among: parts.scenes.scenes.map(\.slug)).map { parts.scenes.scenes[$0] }
    }

    /// Where in `slugs` the scene or group is that a request names by `key` (its name or slug), or why
    /// there is none (the error lists the ones there are).
    static func named(_ request: JSONObject, _ key: String, among slugs: [String]) -> Result<Int, GatewayError> {
        guard let name = request[key]?.stringValue, !name.isEmpty else {
            return .failure(.invalidPayload("name the \(key): {\"\(key)\":\"<name>\"}"))
        }
        let slug = Slug.make(name, fallback: "")
        guard let place = slugs.firstIndex(where: { $0 == name || $0 == slug }) else {
            let known = slugs.isEmpty ? "none yet" : slugs.joined(separator: ", ")
            return .failure(
                .invalidPayload("no \(key) \(JSONString.quoted(String(name.prefix(64)))); the \(key)s are \(known)"))
        }
        return .success(place)
    }

    /// The slug of a new scene's or group's `"name"`, or why it cannot be one: missing, nothing left of it
    /// as a slug, or taken (`taken`) unless `replace` is true.
    static func newSlug(_ request: JSONObject, key: String = "name", what: String, taken: (String) -> Bool)
        -> Result<(name: String, slug: String), GatewayError>
    {
        guard let name = request[key]?.stringValue, !name.isEmpty, name.count <= Slug.maximumLength else {
            return .failure(
                .invalidPayload(
                    "give the \(what) a \(key) of 1 to \(Slug.maximumLength) characters: {\"\(key)\":\"…\"}"))
        }
        let slug = Slug.make(name, fallback: "")
        guard !slug.isEmpty else {
            return .failure(.invalidPayload("the \(what) name \(JSONString.quoted(name)) has no letter or digit"))
        }
        if taken(slug), request["replace"]?.boolValue != true {
            return .failure(
                .invalidPayload(
                    "a \(what) named \(slug) exists already; remove it first, or send \"replace\":true to replace it"))
        }
        return .success((name, slug))
    }
}
