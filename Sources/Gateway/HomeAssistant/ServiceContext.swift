import HomeModel
import JSON

/// What a service mapping sees of one service: its characteristics by type (without the excluded ones),
/// their topics, and the entities made so far. A mapping takes the characteristics it uses (`take`), so
/// that the ones left each get an entity of their own afterwards and nothing is invisible.
struct ServiceContext {
    /// A characteristic with its topics.
    struct Slot {
        let topic: CharacteristicTopic
        let characteristic: Characteristic
        /// Where its value is published; nil when it cannot be read.
        var state: String? { topic.isReadable ? topic.stateTopic : nil }
        /// Where it takes `/set`; nil when it cannot be written.
        var command: String? { topic.isWritable ? topic.stateTopic + "/set" : nil }
    }

    let service: Service
    /// The accessory the service belongs to, for mappings that read linked services (a Television's
    /// Input Sources).
    let accessory: Accessory
    let serviceSlug: String
    let accessorySlug: String
    let topics: TopicScheme
    /// Whether this is the accessory's main service: its main entity takes the device name alone.
    let isMain: Bool
    /// The service's name in entity names: its Name, or its type in words (`Humidity sensor`, `Battery`;
    /// numbered when the type repeats in the accessory: `Button 1`, `Button 2`); empty for a vendor's
    /// service without a name.
    let label: String
    private(set) var slots: [HAPType: Slot]
    private(set) var taken: Set<Int> = []
    var entities: [DiscoveryEntity] = []
    /// The characteristics of the services this one links, with their service's topic slug (a heater-cooler
    /// whose Active sits on its linked Fan).
    var linkedSlots: [(slug: String, slots: [HAPType: Slot])] = []

    init(
        service: Service, accessory: Accessory, serviceSlug: String, accessorySlug: String, topics: TopicScheme,
        isMain: Bool, label: String,
        slots: [HAPType: Slot]
    ) {
        self.service = service
        self.accessory = accessory
        self.serviceSlug = serviceSlug
        self.accessorySlug = accessorySlug
        self.topics = topics
        self.isMain = isMain
        self.label = label
        self.slots = slots
    }

    /// The characteristic of `type`, marked as used by the service's entity.
    mutating func take(_ type: HAPType) -> Slot? {
        guard let slot = slots[type] else { return nil }
        taken.insert(slot.characteristic.iid)
        return slot
    }

    /// The characteristic of `type` when it can be both read and written, marked as used.
    mutating func takeReadWrite(_ type: HAPType) -> (state: String, command: String, slot: Slot)? {
        guard let slot = slots[type], let state = slot.state, let command = slot.command else { return nil }
        taken.insert(slot.characteristic.iid)
        return (state, command, slot)
    }

    /// Whether an entity has used the characteristic with this iid.
    func isTaken(_ iid: Int) -> Bool { taken.contains(iid) }

    /// Whether the service has every one of `types` (not excluded).
    func has(_ types: HAPType...) -> Bool { types.allSatisfy { slots[$0] != nil } }

    /// The characteristics no entity has used yet, in the service's order.
    var untaken: [Slot] {
        service.characteristics.compactMap { c in
            taken.contains(c.iid) ? nil : slots[c.type].flatMap { $0.characteristic.iid == c.iid ? $0 : nil }
        }
    }

    /// `<base>/<accessory>`: the accessory's JSON, for templates that need two values at once.
    var accessoryJSONTopic: String { topics.accessory(accessorySlug) }
    /// `<base>/<accessory>/set`: several writes in one HAP request.
    var accessorySetTopic: String { topics.accessory(accessorySlug) + "/set" }

    /// The main entity's name: the device name alone for the main service, else the service's label.
    var mainName: JSONValue { isMain ? .null : .string(label) }

    /// The name of one more entity of the service, `word` in sentence case (`Mute`, `Filter life`): the
    /// word alone for the main service, else after the service's label (`Speaker mute`), unless the word
    /// already starts with the label (`Battery level` in `Battery`).
    func entityName(_ word: String) -> String {
        if isMain || label.isEmpty || word.lowercased().hasPrefix(label.lowercased()) { return word }
        return "\(label) \(CharacteristicEntities.lowercasingFirstWord(word))"
    }

    /// Adds the service's main entity.
    mutating func addMain(_ component: String, _ options: JSONObject) {
        entities.append(
            DiscoveryEntity(component: component, objectID: "s\(service.iid)", name: mainName, options: options))
    }

    /// Adds an entity of the service besides its main one, `s<service iid>_<suffix>`: `suffix` is
    /// `c<characteristic iid>` for a characteristic's own entity, with `_v<value>` for one value of it.
    mutating func add(_ component: String, suffix: String, name: String, _ options: JSONObject) {
        entities.append(
            DiscoveryEntity(
                component: component, objectID: "s\(service.iid)_\(suffix)", name: .string(entityName(name)),
                options: options))
    }
}
