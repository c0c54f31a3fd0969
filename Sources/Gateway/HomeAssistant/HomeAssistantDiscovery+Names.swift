import HomeModel

/// The names Home Assistant shows (docs/DESIGN.md "Home Assistant"): the device name, and the label of
/// each service that its entities' names start with.
extension HomeAssistantDiscovery {
    /// A service's name in entity names.
    struct Label {
        var text: String
        /// The service's number among the services of its type, when the type repeats in the accessory
        /// (its ServiceLabelIndex, else its place among them); nil for a service alone of its type.
        var number: Int?
        var isNumbered: Bool { number != nil }
    }

    /// The label of every mappable service: its own Name (or ConfiguredName) when it has one that differs
    /// from the accessory's; else its type in words, numbered `1`, `2`, … when the type repeats
    /// (`Button 1`, `Button 2`: the buttons of one remote are all numbered, the first too).
    static func labels(of accessory: Accessory) -> [Int: Label] {
        let mappable = accessory.services.filter(ServiceMappings.isMappable)
        var counts: [HAPType: Int] = [:]
        // A camera's streams are not numbered: only the first gets the image, so it stays "Camera".
        for service in mappable where service.type != DiscoveryTypes.Service.cameraRTPStreamManagement {
            counts[service.type, default: 0] += 1
        }
        var seen: [HAPType: Int] = [:]
        var labels: [Int: Label] = [:]
        let accessoryName = displayName(accessory.name)
        for service in mappable {
            seen[service.type, default: 0] += 1
            var number: Int?
            if counts[service.type, default: 0] > 1 {
                let index = service.characteristic(ofType: DiscoveryTypes.Characteristic.serviceLabelIndex)?.value?
                    .int64Value
                number = index.map { Int($0) } ?? seen[service.type]
            }
            var text: String?
            for type in [HAPType.Characteristic.configuredName, .Characteristic.name] {
                if case .string(let s)? = service.characteristic(ofType: type)?.value {
                    let name = displayName(s)
                    if !name.isEmpty, name != accessoryName { text = name }
                }
                if text != nil { break }
            }
            let word = typeWord(service.type)
            let numbered = number.map { word.isEmpty ? "Service \($0)" : "\(word) \($0)" }
            labels[service.iid] = Label(text: text ?? numbered ?? word, number: number)
        }
        return labels
    }

    /// A service type in words for labels: `Button` for a stateless programmable switch, `Filter` for a
    /// filter's maintenance, `Camera` for a camera's stream, else the type's name in words without a
    /// trailing `service` (`Battery`, `Humidity sensor`); empty for a type the catalog does not know (a
    /// vendor's UUID says nothing).
    private static func typeWord(_ type: HAPType) -> String {
        if type == DiscoveryTypes.Service.statelessProgrammableSwitch { return "Button" }
        if type == DiscoveryTypes.Service.filterMaintenance { return "Filter" }
        if type == DiscoveryTypes.Service.cameraRTPStreamManagement { return "Camera" }
        guard var base = HAPCatalog.service(type)?.slug else { return "" }
        if base.hasSuffix("_service"), base != "_service" { base.removeLast("_service".count) }
        return CharacteristicEntities.words(base)
    }

    /// A name as Home Assistant should show it: runs of white space as one space, none at either end (an
    /// accessory named `Garage ` must not make `Garage  Obstruction detected`).
    static func displayName(_ name: String) -> String {
        name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
