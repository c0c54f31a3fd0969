import Foundation

/// "All retained state published" after `hap2mqtt run` starts (scenario 5), seen by a subscriber to
/// `<base>/#` that subscribed before the process started. The gateway is ready when all of these have
/// arrived:
/// - `<base>/bridge/state` with `"state":"online"`;
/// - `<base>/bridge/accessories`, listing `accessories` accessories;
/// - for each accessory in that list, `online` on `<base>/<accessory>/availability` and its JSON on
///   `<base>/<accessory>`;
/// - for each readable characteristic in that list (perms holding `pr`), a message on its state topic.
///
/// It waits until `bridge/state`, `bridge/accessories` and at least the expected numbers of those messages
/// have arrived; `readyTime()` then checks every topic the list names and returns the latest first
/// arrival among them.
struct StartupExpectation: Expectation {
    let prefix: String
    let accessories: Int
    let characteristics: Int
    /// The first arrival of each topic under the base (for availability: of its first `online`).
    private(set) var arrivals: [Substring: UInt64] = [:]
    private(set) var bridgeAccessories: [UInt8]?
    private(set) var messages = 0
    private var onlineAccessories = 0
    private var accessoryJSON = 0
    private var stateTopics = 0

    init(base: String, accessories: Int, characteristics: Int) {
        prefix = base + "/"
        self.accessories = accessories
        self.characteristics = characteristics
    }

    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool {
        guard topic.hasPrefix(prefix) else { return isDone }
        messages += 1
        let rest = Substring(topic.dropFirst(prefix.count))
        let levels = rest.split(separator: "/", omittingEmptySubsequences: false)
        if rest == "bridge/state" {
            guard String(decoding: payload, as: UTF8.self).contains(#""online""#) else { return isDone }
        } else if rest == "bridge/accessories" {
            bridgeAccessories = Array(payload)
        } else if levels.count == 2, levels[1] == "availability" {
            guard String(decoding: payload, as: UTF8.self) == "online" else { return isDone }
        }
        guard arrivals[rest] == nil else { return isDone }
        arrivals[rest] = time
        if levels.first != "bridge" {
            switch levels.count {
            case 1: accessoryJSON += 1
            case 2 where levels[1] == "availability": onlineAccessories += 1
            case 3: stateTopics += 1
            default: break
            }
        }
        return isDone
    }

    var isDone: Bool {
        arrivals["bridge/state"] != nil && bridgeAccessories != nil && onlineAccessories >= accessories
            && accessoryJSON >= accessories && stateTopics >= characteristics
    }

    var progress: String {
        "bridge/state online: \(arrivals["bridge/state"] != nil), bridge/accessories: \(bridgeAccessories != nil), "
            + "\(onlineAccessories) of \(accessories) accessories online, \(accessoryJSON) accessory JSON messages, "
            + "\(stateTopics) of \(characteristics) state topics"
    }

    /// The latest first arrival among the topics that make "all retained state", and how many readable
    /// characteristics `bridge/accessories` listed.
    /// - Throws: `BenchmarkError.mqtt` when the list is unreadable, lists another number of accessories,
    ///   or names a topic that has not arrived.
    func readyTime() throws -> (time: UInt64, characteristics: Int) {
        struct Entry: Decodable {
            struct Service: Decodable { var characteristics: [Characteristic] }
            struct Characteristic: Decodable {
                var topic: String
                var perms: [String]
            }
            var topic: String
            var services: [Service]
        }
        guard let payload = bridgeAccessories, let list = try? JSONDecoder().decode([Entry].self, from: Data(payload))
        else {
            throw BenchmarkError.mqtt("bridge/accessories is missing or not the expected JSON")
        }
        guard list.count == accessories else {
            throw BenchmarkError.mqtt("bridge/accessories lists \(list.count) accessories, not \(accessories)")
        }
        var required = ["bridge/state", "bridge/accessories"]
        var readable = 0
        for entry in list {
            required += [entry.topic, entry.topic + "/availability"]
            for service in entry.services {
                for c in service.characteristics where c.perms.contains("pr") {
                    required.append(c.topic)
                    readable += 1
                }
            }
        }
        var latest: UInt64 = 0
        for topic in required {
            let relative = topic.hasPrefix(prefix) ? Substring(topic.dropFirst(prefix.count)) : Substring(topic)
            guard let time = arrivals[relative] else { throw BenchmarkError.mqtt("\(prefix)\(relative) never arrived") }
            latest = max(latest, time)
        }
        return (latest, readable)
    }
}
