import HomeModel
import HomeStore
import JSON

/// Scenes (docs/scenes-and-groups.md): `bridge/request/scene_store`, `scene_recall`, `scene_remove`,
/// `scene_rename`, `scene_list`, named as zigbee2mqtt names its scene commands. A recall checks every value
/// first and writes nothing when one is wrong; otherwise it writes each accessory server's values in one
/// request, all servers at once, and answers once with every outcome.
extension Gateway {
    /// The bridge requests of this part.
    static let sceneRequests: Set<String> = [
        "scene_store", "scene_recall", "scene_remove", "scene_rename", "scene_list", "group_add", "group_remove",
        "group_rename", "group_list", "group_set",
    ]

    /// Carries out a scene or group request and hands its answer (`data` JSON, and an error text when it
    /// failed) to `answer`, once: at once for most, when the accessories answered for a recall.
    func sceneRequest(
        _ command: String, _ request: JSONObject, answer: @escaping @Sendable (SceneAnswer) -> Void
    ) async {
        switch command {
        case "scene_recall": await recallScene(request, answer: answer)
        case "scene_store": answer(SceneAnswer(await storeScene(request)))
        case "scene_remove": answer(SceneAnswer(await removeScene(request)))
        case "scene_rename": answer(SceneAnswer(await renameScene(request)))
        case "scene_list":
            let list = parts.scenes.scenes.map { $0.summary(slugs: { self.index.layouts[$0]?.slug }) }
            answer(SceneAnswer(.success(.array(list))))
        case "group_add": answer(SceneAnswer(await addGroup(request)))
        case "group_remove": answer(SceneAnswer(await removeGroup(request)))
        case "group_rename": answer(SceneAnswer(await renameGroup(request)))
        case "group_list": answer(SceneAnswer(.success(listGroups())))
        case "group_set": await setGroup(request, answer: answer)
        default: answer(SceneAnswer(.failure(.invalidPayload("unknown request '\(command)'"))))
        }
    }

    /// The same, awaited (the web page's `bridgeRequest`).
    func sceneRequest(_ command: String, _ request: JSONObject) async -> SceneAnswer {
        let (stream, continuation) = AsyncStream<SceneAnswer>.makeStream()
        await sceneRequest(command, request) {
            continuation.yield($0)
            continuation.finish()
        }
        for await answer in stream { return answer }
        return SceneAnswer(.failure(.invalidPayload("the request ended without an answer")))
    }

    // MARK: store, remove, rename

    /// `scene_store`: `{"name":"Good night"}` with one of `"accessories":["<accessory>",…]` (their current
    /// values), `"room":"<room>"` (every accessory of the room, current values) or
    /// `"values":{"<accessory>":{"<service>":{"<characteristic>":value}}}`; `"replace":true` replaces a
    /// scene of the same name.
    private func storeScene(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        await changingScenes {
            let named = Self.newSlug(request, what: "scene") { slug in
                self.parts.scenes.scenes.contains { $0.slug == slug }
            }
            guard case .success(let (name, slug)) = named else { return named.map { _ in .null } }
            let values: [SceneValue]
            switch await sceneValues(request) {
            case .failure(let error): return .failure(error)
            case .success(let found): values = found
            }
            guard !values.isEmpty else {
                return .failure(
                    .invalidPayload("the scene would hold no value: its accessories have no writable state"))
            }
            let scene = Scene(name: name, slug: slug, values: values)
            var scenes = parts.scenes.scenes
            if let place = scenes.firstIndex(where: { $0.slug == slug }) {
                scenes[place] = scene
            } else {
                scenes.append(scene)
            }
            if let error = await commitScenes(scenes, parts.scenes.groups) { return .failure(error) }
            flush()
            return .success(scene.summary(slugs: { self.index.layouts[$0]?.slug }))
        }
    }

    /// The values a `scene_store` request asks for, or every reason it cannot have them.
    private func sceneValues(_ request: JSONObject) async -> Result<[SceneValue], GatewayError> {
        let sources = ["accessories", "room", "values"].filter { request[$0] != nil }
        guard sources.count == 1 else {
            return .failure(
                .invalidPayload(
                    #"say what the scene holds with one of "accessories":["<accessory>",…], "room":"<room>" or "values":{"<accessory>":{"<service>":{"<characteristic>":value}}}"#
                ))
        }
        switch sources[0] {
        case "accessories":
            guard let names = request["accessories"]?.arrayValue, !names.isEmpty else {
                return .failure(.invalidPayload(#""accessories" is a list of accessory names: ["<accessory>",…]"#))
            }
            var ids: [AccessoryID] = []
            var problems: [String] = []
            for name in names {
                guard let text = name.stringValue, let id = index.accessory(named: text) else {
                    problems.append("no accessory \(String(name.description.prefix(64)))")
                    continue
                }
                if !ids.contains(id) { ids.append(id) }
            }
            guard problems.isEmpty else { return .failure(.invalidPayload(problems.joined(separator: "; "))) }
            return .success(await currentValues(of: ids))
        case "room":
            guard let room = request["room"]?.stringValue, !room.isEmpty else {
                return .failure(.invalidPayload(#""room" is the room's name"#))
            }
            let ids = await store.accessories().filter {
                $0.room?.lowercased() == room.lowercased() && index.layouts[$0.id] != nil
            }.map(\.id)
            guard !ids.isEmpty else {
                return .failure(
                    .invalidPayload("no accessory is in the room \(JSONString.quoted(String(room.prefix(64))))"))
            }
            return .success(await currentValues(of: ids))
        default:
            return await explicitValues(request["values"] ?? .null)
        }
    }

    /// The current value of every readable, writable state characteristic of `ids` (not names, not
    /// identify, not data or TLV8), as a scene stores it.
    private func currentValues(of ids: [AccessoryID]) async -> [SceneValue] {
        var values: [SceneValue] = []
        for id in ids {
            guard let accessory = await store.accessory(id), let layout = index.layouts[id] else { continue }
            for service in accessory.services where service.type != .Service.accessoryInformation {
                for characteristic in service.characteristics
                where characteristic.isReadable && characteristic.isWritable
                    && !Self.unsceneable.contains(characteristic.type)
                    && Self.sceneFormats.contains(characteristic.format)
                {
                    guard let value = characteristic.value, let topic = layout.byIID[characteristic.iid] else {
                        continue
                    }
                    values.append(
                        SceneValue(
                            address: topic.address, value: value.jsonValue,
                            label: "\(layout.slug)/\(topic.serviceSlug)/\(topic.slug)"))
                }
            }
        }
        return values
    }

    /// Characteristics a scene never stores: names are not state, and identify is an action.
    private static let unsceneable: Set<HAPType> = [
        .Characteristic.name, .Characteristic.configuredName, .Characteristic.identify,
    ]

    /// The formats a scene stores: plain values (not TLV8 or data, which carry set-up exchanges).
    private static let sceneFormats: Set<CharacteristicFormat> = [
        .bool, .uint8, .uint16, .uint32, .uint64, .int, .float, .string,
    ]

    /// `{"<accessory>":{"<service>":{"<characteristic>":value}}}`, every name and value checked by the store
    /// (nothing written); every problem in one error.
    private func explicitValues(_ json: JSONValue) async -> Result<[SceneValue], GatewayError> {
        guard let object = json.objectValue, !object.isEmpty else {
            return .failure(
                .invalidPayload(#""values" is an object {"<accessory>":{"<service>":{"<characteristic>":value}}}"#))
        }
        var values: [SceneValue] = []
        var problems: [String] = []
        for accessory in object {
            guard let id = index.accessory(named: accessory.key), let layout = index.layouts[id] else {
                problems.append("no accessory \(JSONString.quoted(String(accessory.key.prefix(64))))")
                continue
            }
            switch Self.serviceValues(accessory.value) {
            case .failure(let error): problems.append("\(layout.slug): \(error)")
            case .success(let services):
                for (serviceSlug, chars) in services.sorted(by: { $0.key < $1.key }) {
                    guard let service = layout.services.first(where: { $0.slug == serviceSlug }) else {
                        problems.append("\(layout.slug) has no service \(serviceSlug)")
                        continue
                    }
                    for (charSlug, scalar) in chars.sorted(by: { $0.key < $1.key }) {
                        guard let topic = service.characteristics.first(where: { $0.slug == charSlug }) else {
                            problems.append("\(layout.slug)/\(serviceSlug) has no characteristic \(charSlug)")
                            continue
                        }
                        values.append(
                            SceneValue(
                                address: topic.address, value: scalar,
                                label: "\(layout.slug)/\(serviceSlug)/\(charSlug)"))
                    }
                }
            }
        }
        problems += await valueProblems(values)
        guard problems.isEmpty else { return .failure(.invalidPayload(problems.joined(separator: "; "))) }
        return .success(values)
    }

    /// Why values cannot be written (a value out of range, the wrong type, a read-only characteristic),
    /// each named by its label; the accessory being offline is no problem here.
    private func valueProblems(_ values: [SceneValue]) async -> [String] {
        let checked = await store.check(values.map { WriteCommand($0.address, .json($0.value), name: nil) })
        return values.compactMap { value in
            guard case .invalidValue(let error)? = checked.failures[value.address] else { return nil }
            return "\(value.label): \(error)"
        }
    }

    /// `scene_remove`: `{"scene":"<name>"}`.
    private func removeScene(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        await changingScenes {
            switch namedScene(request) {
            case .failure(let error): return .failure(error)
            case .success(let scene):
                let scenes = parts.scenes.scenes.filter { $0.slug != scene.slug }
                if let error = await commitScenes(scenes, parts.scenes.groups) { return .failure(error) }
                flush()
                return .success(["scene": .string(scene.slug)])
            }
        }
    }

    /// `scene_rename`: `{"scene":"<name>","to":"<new name>"}`.
    private func renameScene(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        await changingScenes {
            let scene: Scene
            switch namedScene(request) {
            case .failure(let error): return .failure(error)
            case .success(let found): scene = found
            }
            let named = Self.newSlug(request, key: "to", what: "scene") { slug in
                slug != scene.slug && self.parts.scenes.scenes.contains { $0.slug == slug }
            }
            guard case .success(let (name, slug)) = named else { return named.map { _ in .null } }
            var scenes = parts.scenes.scenes.filter { $0.slug != slug || $0.slug == scene.slug }
            guard let place = scenes.firstIndex(where: { $0.slug == scene.slug }) else { return .success(.null) }
            scenes[place].name = name
            scenes[place].slug = slug
            if let error = await commitScenes(scenes, parts.scenes.groups) { return .failure(error) }
            flush()
            return .success(["scene": .string(slug), "from": .string(scene.slug)])
        }
    }

    // MARK: recall

    /// `scene_recall`: `{"scene":"<name>"}`. Every present value is checked first; one wrong value refuses
    /// the whole recall with every reason, nothing written. Values of accessories removed since are
    /// reported as missing, the rest written: one request per accessory server, all at once.
    private func recallScene(_ request: JSONObject, answer: @escaping @Sendable (SceneAnswer) -> Void) async {
        let scene: Scene
        switch namedScene(request) {
        case .failure(let error): return answer(SceneAnswer(.failure(error)))
        case .success(let found): scene = found
        }
        var present: [SceneValue] = []
        var missing: [String] = []
        for value in scene.values {
            if index.topic(at: value.address) != nil {
                present.append(value)
            } else {
                missing.append(value.label)
            }
        }
        guard !present.isEmpty else {
            return answer(
                SceneAnswer(
                    .failure(
                        .invalidPayload(
                            "every accessory of scene \(scene.slug) is gone: \(missing.joined(separator: ", "))"))))
        }
        let commands = present.map { value in
            WriteCommand(value.address, .json(value.value), name: index.topic(at: value.address)?.slug)
        }
        let checked = await store.check(commands)
        let problems = present.compactMap { value -> String? in
            guard case .invalidValue(let error)? = checked.failures[value.address] else { return nil }
            return "\(labelNow(value.address) ?? value.label): \(error)"
        }
        guard problems.isEmpty else {
            return answer(
                SceneAnswer(
                    .failure(
                        .invalidPayload(
                            "scene \(scene.slug) was not recalled, nothing was written: \(problems.joined(separator: "; "))"
                        ))))
        }
        let gone = missing
        let finish: @Sendable ([CharacteristicAddress: HomeStore.WriteResult]) -> Void = { [weak self] outcome in
            self?.assumeIsolated { gateway in
                answer(gateway.sceneAnswer(scene, outcome, missing: gone))
            }
        }
        let outcome = await store.enqueueByServer(checked, completion: finish)
        if let outcome { answer(sceneAnswer(scene, outcome, missing: gone)) }
    }

    private func sceneAnswer(
        _ scene: Scene, _ outcome: [CharacteristicAddress: HomeStore.WriteResult], missing: [String]
    )
        -> SceneAnswer
    {
        let report = WriteReport(outcome, missing: missing, label: { self.labelParts($0) })
        return SceneAnswer(data: report.data(["scene": .string(scene.slug)]), error: report.error)
    }

    /// `<accessory>/<service>/<characteristic>` of `address` now; nil when it is not published.
    func labelNow(_ address: CharacteristicAddress) -> String? {
        guard let layout = index.layouts[address.accessory], let topic = layout.byIID[address.iid] else { return nil }
        return "\(layout.slug)/\(topic.serviceSlug)/\(topic.slug)"
    }

    /// The three parts of `labelNow`, the id and iid for what is not published.
    func labelParts(_ address: CharacteristicAddress) -> (accessory: String, service: String, characteristic: String) {
        guard let layout = index.layouts[address.accessory], let topic = layout.byIID[address.iid] else {
            return (address.accessory.description, "?", String(address.iid))
        }
        return (layout.slug, topic.serviceSlug, topic.slug)
    }
}

/// A scene or group request's answer: its `data`, and the error when it failed (wholly or in part).
struct SceneAnswer: Sendable {
    var data: JSONValue
    var error: String?

    init(data: JSONValue, error: String?) {
        self.data = data
        self.error = error
    }

    init(_ result: Result<JSONValue, GatewayError>) {
        switch result {
        case .success(let data): self.init(data: data, error: nil)
        case .failure(let error): self.init(data: .object([:]), error: error.description)
        }
    }
}
