// swift-format-ignore-file: AlwaysUseLowerCamelCase
// Why: max_length and valid_values are the accessory JSON's field names.

internal import Foundation
public import HomeModel
public import HomeStore

/// One entry of `<base>/bridge/accessories` (docs/DESIGN.md "Topics"): what a user or a tool needs to find an
/// accessory's topics and know what each characteristic takes.
public struct AccessoryDescription: Encodable, Sendable {
    public struct CharacteristicEntry: Encodable, Sendable {
        public var iid: Int
        public var type: String
        public var name: String?
        public var slug: String
        public var topic: String
        public var format: String
        public var unit: String?
        public var min: Double?
        public var max: Double?
        public var step: Double?
        public var max_length: Int?
        public var valid_values: [String: Int]?
        public var perms: [String]
    }

    public struct ServiceEntry: Encodable, Sendable {
        public var iid: Int
        public var type: String
        public var name: String?
        public var slug: String
        public var primary: Bool
        public var characteristics: [CharacteristicEntry]
    }

    /// The options saved through `bridge/request/options` (only those set).
    public struct OptionsEntry: Encodable, Sendable {
        public var name: String?
        public var room: String?
        public var exclude: Bool?
    }

    public var id: String
    public var name: String
    public var slug: String
    /// Nil when no option is saved for the accessory.
    public var options: OptionsEntry?
    public var home: String?
    public var room: String?
    public var manufacturer: String?
    public var model: String?
    public var serial: String?
    public var firmware: String?
    public var reachable: Bool
    /// Why it is offline, as a code (`OfflineReason`); nil while it is reachable.
    public var offline_reason: String?
    public var topic: String
    public var services: [ServiceEntry]

    /// - Parameters:
    ///   - options: the accessory's saved options (`bridge/request/options`), nil when none.
    ///   - offlineReason: why it is offline (`HomeStore.offlineReasons()`); `unknown` when unreachable
    ///     without one.
    public init(
        accessory: Accessory, layout: AccessoryLayout, reachable: Bool, topics: TopicScheme,
        options: AccessoryOptions? = nil, offlineReason: OfflineReason? = nil
    ) {
        id = accessory.id.description
        name = accessory.name
        slug = layout.slug
        if let options, !options.isEmpty {
            self.options = OptionsEntry(name: options.name, room: options.room, exclude: options.exclude)
        }
        home = accessory.home
        room = accessory.room
        manufacturer = accessory.manufacturer
        model = accessory.model
        serial = accessory.serialNumber
        firmware = accessory.firmwareRevision
        self.reachable = reachable
        offline_reason = reachable ? nil : (offlineReason ?? .unknown).rawValue
        topic = topics.accessory(layout.slug)
        var services: [ServiceEntry] = []
        for (service, laid) in zip(accessory.services, layout.services) {
            var entries: [CharacteristicEntry] = []
            for (c, t) in zip(service.characteristics, laid.characteristics) {
                let info = HAPCatalog.characteristic(c.type)
                var valid: [String: Int]?
                if let allowed = c.validValues ?? info.map({ $0.validValues.map(\.value) }), !allowed.isEmpty {
                    var named: [String: Int] = [:]
                    for v in allowed {
                        let label = info?.validValues.first { $0.value == v }?.name ?? String(v)
                        named[label] = v
                    }
                    valid = named
                }
                entries.append(
                    CharacteristicEntry(
                        iid: c.iid, type: c.type.shortForm, name: info?.name, slug: t.slug, topic: t.stateTopic,
                        format: c.format.rawValue, unit: c.unit, min: c.minValue, max: c.maxValue, step: c.minStep,
                        max_length: c.maxLength, valid_values: valid, perms: c.permissions.hapNames))
            }
            services.append(
                ServiceEntry(
                    iid: service.iid, type: service.type.shortForm, name: HAPCatalog.service(service.type)?.name,
                    slug: laid.slug, primary: service.isPrimary, characteristics: entries))
        }
        self.services = services
    }
}
