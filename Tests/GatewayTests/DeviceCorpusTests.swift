import Foundation
import Gateway
import HAPController
import HomeModel
import JSON
import Testing

/// Real accessories' databases (`Tests/Fixtures/devices/*.json`, each with a note of where its facts come
/// from) held against the entities Home Assistant's own HomeKit Controller integration makes of them: the
/// discovery configs hap2mqtt builds must cover those entities on the same platform, with the same device
/// class, unit and state class (docs/devices.md).
@Suite("Real devices: Home Assistant's entities from real accessory databases")
struct DeviceCorpusTests {
    /// One corpus file.
    struct Device {
        var file: String
        var name: String
        var accessories: [Accessory]
        /// Home Assistant's entities: platform, `<aid>_<service iid>[_<characteristic iid>]`, classes.
        var expected: [JSONValue]
    }

    /// An entity as hap2mqtt announces it.
    struct Announced {
        var component: String
        var serviceIID: Int?
        var characteristicIID: Int?
        var payload: JSONValue
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/devices").standardized

    static func devices() throws -> [Device] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
            .sorted()
        return try files.map { file in
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(file)))
            let json = try JSONValue(parsing: bytes)
            let list = try HAPAccessoryList(
                json: ["accessories": json["accessories"] ?? .array([])], serverID: "AA:BB:CC:DD:EE:FF")
            return Device(
                file: file, name: json["device"]?.stringValue ?? file, accessories: list.accessories,
                expected: json["homeAssistant"]?.arrayValue ?? [])
        }
    }

    /// The `source` note of a corpus file.
    static func source(of file: String) throws -> String {
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(file)))
        return try JSONValue(parsing: bytes)["source"]?.stringValue ?? ""
    }

    let discovery = HomeAssistantDiscovery(
        configuration: HomeAssistantConfiguration(), topics: TopicScheme(base: "hap2mqtt"), version: "test")

    /// Every entity hap2mqtt announces for `accessory` (device triggers left out: they are no entities).
    func announced(_ accessory: Accessory) -> [Announced] {
        let layout = AccessoryLayout(accessory: accessory, slug: "a\(accessory.id.aid)", topics: discovery.topics)
        return discovery.configs(for: accessory, layout: layout, applyingExclusions: true).compactMap { config in
            guard config.component != "device_automation" else { return nil }
            let objectID = config.topic.split(separator: "/").dropLast().last.map(String.init) ?? ""
            let parts = objectID.split(separator: "_")
            let service = parts.first.flatMap { $0.hasPrefix("s") ? Int($0.dropFirst()) : nil }
            let characteristic = parts.dropFirst().first.flatMap { $0.hasPrefix("c") ? Int($0.dropFirst()) : nil }
            return Announced(
                component: config.component, serviceIID: service, characteristicIID: characteristic,
                payload: config.payload)
        }
    }

    /// How one of Home Assistant's entities fares: missing, on the same platform with a difference
    /// (named), or the same.
    enum Outcome: Equatable {
        case missing
        case differs(String)
        case same
    }

    /// Matches Home Assistant's entities of a device to hap2mqtt's: by service and characteristic iid
    /// first, then by service and platform.
    func compare(_ device: Device) -> [(JSONValue, Outcome)] {
        var pool: [Int: [Announced]] = [:]
        for accessory in device.accessories { pool[accessory.id.aid] = announced(accessory) }
        var results: [(JSONValue, Outcome)] = []
        for entity in device.expected {
            let platform = entity["platform"]?.stringValue ?? ""
            let ids = (entity["id"]?.stringValue ?? "").split(separator: "_").map { Int($0) }
            guard ids.count >= 2, let aid = ids[0], let service = ids[1] else { continue }
            let characteristic = ids.count > 2 ? ids[2] : nil
            var candidates = pool[aid] ?? []
            let exact = candidates.firstIndex {
                $0.component == platform && $0.serviceIID == service
                    && (characteristic == nil || $0.characteristicIID == characteristic)
            }
            let loose = candidates.firstIndex { $0.component == platform && $0.serviceIID == service }
            guard let index = exact ?? loose else {
                results.append((entity, .missing))
                continue
            }
            let mine = candidates.remove(at: index)
            pool[aid] = candidates
            var differences: [String] = []
            let checked = platform == "sensor" ? ["device_class", "unit", "state_class"] : ["device_class"]
            for key in checked where platform == "sensor" || platform == "binary_sensor" {
                let theirs = entity[key]?.stringValue
                let ours = mine.payload[key == "unit" ? "unit_of_measurement" : key]?.stringValue
                if theirs != ours { differences.append("\(key) \(ours ?? "none") for \(theirs ?? "none")") }
            }
            results.append((entity, differences.isEmpty ? .same : .differs(differences.joined(separator: ", "))))
        }
        return results
    }

    @Test("the corpus holds the real devices of every vendor named in docs/devices.md, each with its source")
    func corpusIsComplete() throws {
        let devices = try Self.devices()
        #expect(devices.count >= 40, "\(devices.count) devices")
        #expect(devices.reduce(0) { $0 + $1.accessories.count } >= 40, "accessories")
        for device in devices {
            #expect(!device.accessories.isEmpty && !device.expected.isEmpty, "\(device.file)")
            #expect(try Self.source(of: device.file).contains("github.com/"), "\(device.file) says where it is from")
        }
    }

    @Test("hap2mqtt announces Home Assistant's entities of every device in the corpus; parity printed per device")
    func parity() throws {
        var total = 0
        var samePlatform = 0
        var same = 0
        for device in try Self.devices() {
            let results = compare(device)
            let found = results.filter { $0.1 != .missing }.count
            let exact = results.filter { $0.1 == .same }.count
            total += results.count
            samePlatform += found
            same += exact
            var line = "\(device.file): \(found)/\(results.count) on the same platform, \(exact) the same"
            for (entity, outcome) in results where outcome != .same {
                let id = entity["id"]?.stringValue ?? ""
                let platform = entity["platform"]?.stringValue ?? ""
                switch outcome {
                case .missing: line += "\n  missing \(platform) \(id)"
                case .differs(let why): line += "\n  \(platform) \(id): \(why)"
                case .same: break
                }
            }
            print(line)
        }
        let platformShare = Double(samePlatform) / Double(max(total, 1)) * 100
        let sameShare = Double(same) / Double(max(total, 1)) * 100
        print(
            "corpus parity: \(samePlatform)/\(total) = \(String(format: "%.1f", platformShare)) % on the same platform, "
                + "\(same)/\(total) = \(String(format: "%.1f", sameShare)) % without a functional difference")
        #expect(platformShare >= 98, "same platform: \(platformShare) %")
        #expect(sameShare >= 95, "without a difference: \(sameShare) %")
    }

    @Test("no entity of any device is named by a UUID; a characteristic nobody knows is diagnostic and disabled")
    func noUUIDNames() throws {
        let uuid = try Regex("[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
        for device in try Self.devices() {
            for accessory in device.accessories {
                for entity in announced(accessory) {
                    let name = entity.payload["name"]?.stringValue ?? ""
                    #expect(name.firstMatch(of: uuid) == nil, "\(device.file): \(name)")
                }
            }
        }
    }

    @Test("Eve Energy's energy is a kWh total_increasing energy sensor, usable in Home Assistant's Energy dashboard")
    func eveEnergyDashboard() throws {
        let eve = try #require(try Self.devices().first { $0.file == "eve_energy.json" })
        let sensors = announced(try #require(eve.accessories.first)).filter { $0.component == "sensor" }
        let energy = try #require(sensors.first { $0.payload["device_class"]?.stringValue == "energy" })
        #expect(energy.payload["unit_of_measurement"]?.stringValue == "kWh")
        #expect(energy.payload["state_class"]?.stringValue == "total_increasing")
        #expect(energy.payload["name"]?.stringValue == "Energy")
        let power = try #require(sensors.first { $0.payload["device_class"]?.stringValue == "power" })
        #expect(power.payload["unit_of_measurement"]?.stringValue == "W")
        #expect(power.payload["state_class"]?.stringValue == "measurement")
    }
}
