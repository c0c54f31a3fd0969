public import HomeModel

/// Where one characteristic lives on MQTT.
public struct CharacteristicTopic: Sendable, Hashable {
    public let address: CharacteristicAddress
    public let type: HAPType
    public let serviceSlug: String
    public let slug: String
    /// `<base>/<accessory>/<service>/<characteristic>`.
    public let stateTopic: String
    /// Has `pr`: its value is published.
    public let isReadable: Bool
    /// Has `pw`: it takes `/set`.
    public let isWritable: Bool
    /// An event-only characteristic (ProgrammableSwitchEvent): published without retain, on events only.
    public let isStateless: Bool
    /// The accessory's Name (in its AccessoryInformation service): a change renames the accessory.
    public let isAccessoryName: Bool
}

/// The topics of one accessory: its slug, its services' and characteristics' slugs and state topics
/// (docs/DESIGN.md "Identity and names").
///
/// A service slug is its type name (`lightbulb`); when a type repeats in the accessory, the later ones
/// take their Name/ConfiguredName when they have one, else `_2`, `_3`. A characteristic slug is its type
/// name in snake case (`color_temperature`); vendor types use their full UUID in lower case.
public struct AccessoryLayout: Sendable {
    public let id: AccessoryID
    public let slug: String
    /// Services in the accessory's order: (service slug, service iid, characteristics in order).
    public let services: [(slug: String, iid: Int, type: HAPType, characteristics: [CharacteristicTopic])]
    /// Characteristic topics by iid.
    public let byIID: [Int: CharacteristicTopic]
    /// `<base>/<accessory>/<service>/snapshot` of a camera (an accessory with a CameraRTPStreamManagement
    /// service, the first one's slug); nil for other accessories.
    public let snapshotTopic: String?

    public init(accessory: Accessory, slug: String, topics: TopicScheme) {
        id = accessory.id
        self.slug = slug
        var serviceSlugs = Set<String>()
        var services: [(slug: String, iid: Int, type: HAPType, characteristics: [CharacteristicTopic])] = []
        var byIID: [Int: CharacteristicTopic] = [:]
        for service in accessory.services {
            let typeSlug = HAPCatalog.serviceSlug(service.type)
            var serviceSlug = typeSlug
            if serviceSlugs.contains(typeSlug), let name = AccessoryLayout.serviceName(service) {
                serviceSlug = Slug.make(name, fallback: typeSlug)
            }
            serviceSlug = Slug.unique(serviceSlug) { serviceSlugs.contains($0) || $0 == "set" || $0 == "availability" }
            serviceSlugs.insert(serviceSlug)
            var charSlugs = Set<String>()
            var characteristics: [CharacteristicTopic] = []
            for c in service.characteristics {
                let charSlug = Slug.unique(HAPCatalog.characteristicSlug(c.type)) { charSlugs.contains($0) }
                charSlugs.insert(charSlug)
                let topic = CharacteristicTopic(
                    address: CharacteristicAddress(accessory: accessory.id, iid: c.iid), type: c.type,
                    serviceSlug: serviceSlug, slug: charSlug,
                    stateTopic: topics.characteristic(slug, serviceSlug, charSlug),
                    isReadable: c.isReadable, isWritable: c.isWritable,
                    isStateless: HAPCatalog.isStateless(c.type),
                    isAccessoryName: service.type == .Service.accessoryInformation && c.type == .Characteristic.name)
                characteristics.append(topic)
                byIID[c.iid] = topic
            }
            services.append((serviceSlug, service.iid, service.type, characteristics))
        }
        self.services = services
        self.byIID = byIID
        snapshotTopic = services.first { $0.type == AccessoryLayout.cameraRTPStreamManagement }.map {
            topics.snapshot(slug, $0.slug)
        }
    }

    /// The service of a camera's video streams (HAP type 110), which names its snapshot topic.
    static let cameraRTPStreamManagement = HAPType("110")!

    private static func serviceName(_ service: Service) -> String? {
        for type in [HAPType.Characteristic.configuredName, HAPType.Characteristic.name] {
            if case .string(let s)? = service.characteristic(ofType: type)?.value, !s.isEmpty { return s }
        }
        return nil
    }

    /// Every characteristic topic, in service order.
    public var characteristics: [CharacteristicTopic] { services.flatMap(\.characteristics) }
}
