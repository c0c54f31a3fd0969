import HomeModel
import HomeStore
import JSON
import MQTT

/// Groups (docs/scenes-and-groups.md): `bridge/request/group_add`, `group_remove`, `group_rename`; each
/// group's aggregated state on `<base>/groups/<group>` (the rule in `GroupState`) and its `/set`, which
/// writes every member (one request per accessory server, all at once) and answers once.
extension Gateway {
    // MARK: add, remove, rename

    /// `group_add`: `{"name":"Living room lights","members":["<accessory>" or "<accessory>/<service>",…]}`.
    /// An accessory named alone stands for its one service of a group's kind. Every member must be of
    /// one kind (light, switch, outlet, cover); `"replace":true` replaces a group of the same name.
    func addGroup(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        await changingScenes {
            let named = Self.newSlug(request, what: "group") { slug in
                self.parts.scenes.groups.contains { $0.slug == slug }
            }
            guard case .success(let (name, slug)) = named else { return named.map { _ in .null } }
            guard let entries = request["members"]?.arrayValue, !entries.isEmpty else {
                return .failure(
                    .invalidPayload(
                        #"list the group's members: "members":["<accessory>" or "<accessory>/<service>",…]"#))
            }
            var members: [(member: GroupMember, label: String, kind: GroupKind)] = []
            var problems: [String] = []
            for entry in entries {
                switch groupMember(entry.stringValue ?? "") {
                case .failure(let why): problems.append(why.description)
                case .success(let found):
                    if members.contains(where: { $0.member == found.member }) {
                        problems.append("\(found.label) is listed twice")
                    } else {
                        members.append(found)
                    }
                }
            }
            let kinds = Set(members.map(\.kind))
            if kinds.count > 1 {
                let each = members.map { "\($0.label) is a \($0.kind.rawValue)" }.joined(separator: ", ")
                problems.append("a group holds one kind of service: \(each)")
            }
            guard problems.isEmpty, let kind = kinds.first else {
                return .failure(.invalidPayload(problems.joined(separator: "; ")))
            }
            let group = DeviceGroup(name: name, slug: slug, kind: kind, members: members.map(\.member))
            var groups = parts.scenes.groups
            if let place = groups.firstIndex(where: { $0.slug == slug }) {
                groups[place] = group
            } else {
                groups.append(group)
            }
            if let error = await commitScenes(parts.scenes.scenes, groups) { return .failure(error) }
            // Published again in full, its Home Assistant entity too (its kind may have changed).
            parts.scenes.shownStates[slug] = nil
            await refreshGroups()
            flush()
            return .success(groupSummary(group))
        }
    }

    /// The member `text` names (`<accessory>` or `<accessory>/<service>`), its label and kind, or why it
    /// names none.
    private func groupMember(_ text: String) -> Result<
        (member: GroupMember, label: String, kind: GroupKind), GatewayError
    > {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        let shown = JSONString.quoted(String(text.prefix(64)))
        guard let first = parts.first, let id = index.accessory(named: first), let layout = index.layouts[id] else {
            return .failure(.invalidPayload("no accessory \(shown)"))
        }
        let candidates = layout.services.filter { service in
            GroupKind(serviceType: service.type) != nil && (parts.count == 1 || service.slug == parts[1])
        }
        guard candidates.count == 1, let service = candidates.first, let kind = GroupKind(serviceType: service.type)
        else {
            if parts.count == 2 {
                return .failure(.invalidPayload("\(shown) is no light, switch, outlet or cover service"))
            }
            return .failure(
                .invalidPayload(
                    candidates.isEmpty
                        ? "\(layout.slug) has no light, switch, outlet or cover"
                        : "\(layout.slug) has several services a group takes; name one: \(candidates.map { "\(layout.slug)/\($0.slug)" }.joined(separator: ", "))"
                ))
        }
        return .success((GroupMember(accessory: id, service: service.iid), "\(layout.slug)/\(service.slug)", kind))
    }

    /// `group_set`: `{"group":"<name>", …}` with the fields of a group's `/set` (`"state"`, `"brightness"`,
    /// `"position"`); answered as `…/set/result` is.
    func setGroup(_ request: JSONObject, answer: @escaping @Sendable (SceneAnswer) -> Void) async {
        let group: DeviceGroup
        switch namedGroup(request) {
        case .failure(let error): return answer(SceneAnswer(.failure(error)))
        case .success(let found): group = found
        }
        var command = JSONObject()
        for member in request where member.key != "group" && member.key != "transaction" {
            command.append(member.key, member.value)
        }
        await setGroup(group.slug, JSONValue.object(command).encoded()) { json in
            answer(SceneAnswer(data: json, error: json["error"]?.stringValue))
        }
    }

    /// `group_list`: every group's summary with its state now.
    func listGroups() -> JSONValue {
        .array(
            parts.scenes.groups.map { group in
                var summary = groupSummary(group).objectValue ?? JSONObject()
                summary.append("state", .object(groupState(group)))
                return .object(summary)
            })
    }

    /// The group a request names by `"group"` (its name or slug), or why there is none.
    private func namedGroup(_ request: JSONObject) -> Result<DeviceGroup, GatewayError> {
        Self.named(request, "group", among: parts.scenes.groups.map(\.slug)).map { parts.scenes.groups[$0] }
    }

    /// `group_remove`: `{"group":"<name>"}`; its state topic is cleared.
    func removeGroup(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        await changingScenes {
            switch namedGroup(request) {
            case .failure(let error): return .failure(error)
            case .success(let group):
                let groups = parts.scenes.groups.filter { $0.slug != group.slug }
                if let error = await commitScenes(parts.scenes.scenes, groups) { return .failure(error) }
                clearGroupTopics(group)
                flush()
                return .success(["group": .string(group.slug)])
            }
        }
    }

    /// `group_rename`: `{"group":"<name>","to":"<new name>"}`; the state moves to the new topic.
    func renameGroup(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        await changingScenes {
            let group: DeviceGroup
            switch namedGroup(request) {
            case .failure(let error): return .failure(error)
            case .success(let found): group = found
            }
            let named = Self.newSlug(request, key: "to", what: "group") { slug in
                slug != group.slug && self.parts.scenes.groups.contains { $0.slug == slug }
            }
            guard case .success(let (name, slug)) = named else { return named.map { _ in .null } }
            var groups = parts.scenes.groups.filter { $0.slug != slug || $0.slug == group.slug }
            guard let place = groups.firstIndex(where: { $0.slug == group.slug }) else { return .success(.null) }
            groups[place].name = name
            groups[place].slug = slug
            if let error = await commitScenes(parts.scenes.scenes, groups) { return .failure(error) }
            if slug != group.slug { clearGroupTopics(group) }
            publishGroupStates()
            flush()
            return .success(["group": .string(slug), "from": .string(group.slug)])
        }
    }

    /// Clears a group's retained state (and its Home Assistant entity).
    private func clearGroupTopics(_ group: DeviceGroup) {
        clearGroupDiscovery(group)
        outbox.clear(topics.group(group.slug))
        parts.scenes.shownStates[group.slug] = nil
    }

    /// `{"name":…,"slug":…,"kind":…,"members":["<accessory>/<service>",…],"topic":…}`.
    func groupSummary(_ group: DeviceGroup) -> JSONValue {
        let members = group.members.map { member -> JSONValue in
            guard let layout = index.layouts[member.accessory],
                let service = layout.services.first(where: { $0.iid == member.service })
            else { return .string("\(member.accessory)/\(member.service)") }
            return .string("\(layout.slug)/\(service.slug)")
        }
        return [
            "name": .string(group.name), "slug": .string(group.slug), "kind": .string(group.kind.rawValue),
            "members": .array(members), "topic": .string(topics.group(group.slug)),
        ]
    }

    /// `bridge/groups`, retained: every group's summary.
    func publishGroupList() {
        outbox.retain(
            topics.bridgeGroups, JSONValue.array(parts.scenes.groups.map { self.groupSummary($0) }).description,
            qos: .atLeastOnce)
    }

    // MARK: state

    /// At start: the lists, and every group's state.
    func publishScenesAndGroups() async {
        publishSceneList()
        publishSceneDiscovery(removed: [])
        publishGroupList()
        await refreshGroups()
    }

    /// Reads the members' values from the store again and queues the groups' states that changed (the
    /// caller flushes: at start, `run()` sends them with everything else): at start, when a group is
    /// added, and when a member accessory comes, goes or changes. One runs at a time; a refresh asked for
    /// meanwhile runs after it.
    func refreshGroups() async {
        guard !parts.scenes.refresh.running else {
            parts.scenes.refresh.again = true
            return
        }
        parts.scenes.refresh.running = true
        repeat {
            parts.scenes.refresh.again = false
            var watched = Set<CharacteristicAddress>()
            var values: [CharacteristicAddress: CharacteristicValue] = [:]
            for id in Set(parts.scenes.groups.flatMap { $0.members.map(\.accessory) }) {
                guard index.layouts[id] != nil, let accessory = await store.accessory(id) else { continue }
                let reachable = await store.isReachable(id)
                for member in parts.scenes.groups.flatMap(\.members) where member.accessory == id {
                    guard let service = accessory.services.first(where: { $0.iid == member.service }) else { continue }
                    for c in service.characteristics where Self.groupTypes.contains(c.type) {
                        let address = CharacteristicAddress(accessory: id, iid: c.iid)
                        watched.insert(address)
                        if reachable, let value = c.value { values[address] = value }
                    }
                }
            }
            parts.scenes.watched = watched
            parts.scenes.memberValues = values
            publishGroupStates()
        } while parts.scenes.refresh.again
        parts.scenes.refresh.running = false
    }

    /// The characteristics a group's state reads.
    private static let groupTypes: Set<HAPType> = [
        GroupCharacteristic.on, GroupCharacteristic.brightness, GroupCharacteristic.currentPosition,
    ]

    /// Queues each group's state where it changed (retained), and its Home Assistant entity.
    func publishGroupStates() {
        for group in parts.scenes.groups {
            let payload = JSONValue.object(groupState(group)).description
            guard parts.scenes.shownStates[group.slug] != payload else { continue }
            if parts.scenes.shownStates[group.slug] == nil { publishGroupDiscovery(group) }
            parts.scenes.shownStates[group.slug] = payload
            outbox.retain(topics.group(group.slug), payload, qos: configuration.stateQoS)
        }
    }

    /// A group's state now (`GroupState`).
    func groupState(_ group: DeviceGroup) -> JSONObject {
        let values = parts.scenes.memberValues
        let members = group.members.map { member -> GroupState.Member in
            guard let layout = index.layouts[member.accessory],
                let service = layout.services.first(where: { $0.iid == member.service })
            else { return GroupState.Member() }
            func value(_ type: HAPType) -> CharacteristicValue? {
                service.characteristics.first { $0.type == type }.flatMap { values[$0.address] }
            }
            return GroupState.Member(
                on: value(GroupCharacteristic.on)?.boolValue,
                brightness: value(GroupCharacteristic.brightness)?.doubleValue,
                position: value(GroupCharacteristic.currentPosition)?.doubleValue)
        }
        return GroupState.aggregate(group.kind, members)
    }

    /// Follows a batch of the store's changes (`apply(_:)`): a member's value updates its groups' state
    /// at once; a member accessory that comes, goes, changes or changes reachability has its values read
    /// again.
    func followGroups(_ batch: [HomeChange]) {
        guard !parts.scenes.groups.isEmpty else { return }
        var changed = false
        var reread = false
        let members = Set(parts.scenes.groups.flatMap { $0.members.map(\.accessory) })
        for change in batch {
            switch change {
            case .valueChanged(let address, let value, _):
                guard parts.scenes.watched.contains(address) else { continue }
                parts.scenes.memberValues[address] = value
                changed = true
            case .accessoryAdded(let accessory), .accessoryRemoved(let accessory):
                if members.contains(accessory.id) { reread = true }
            case .accessoryUpdated(_, let accessory):
                if members.contains(accessory.id) { reread = true }
            case .reachabilityChanged(let id, _, _):
                if members.contains(id) { reread = true }
            }
        }
        if changed {
            if parts.scenes.refresh.running { parts.scenes.refresh.again = true }
            publishGroupStates()
        }
        if reread {
            Task { [weak self] in
                await self?.refreshGroups()
                await self?.flush()
            }
        }
    }
}
