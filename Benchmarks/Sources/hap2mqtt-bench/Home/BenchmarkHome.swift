import HAP2MQTTTesting
import HomeModel
import HomeStore

/// The home the gateway scenarios use: accessories of exactly 20 characteristics each, built from the
/// catalog by the in-memory provider's builder, and a deterministic stream of value changes.
///
/// Each accessory has AccessoryInformation (6: Identify, which is write-only, and five strings),
/// Lightbulb (On, Brightness, Hue, Saturation, ColorTemperature, ActiveTransitionCount), TemperatureSensor
/// (CurrentTemperature and four Status flags), Switch (On) and Outlet (On, OutletInUse). The 14
/// characteristics outside the information service are numbers and booleans that change; the strings
/// do not (a Name change would rename the accessory).
struct BenchmarkHome: Sendable {
    static let serverID = "00:00:00:00:BE:01"
    static let characteristicsPerAccessory = 20
    static let services: [HAPType] = [.Service.lightbulb, .Service.temperatureSensor, .Service.switch, .Service.outlet]

    /// The values a characteristic cycles through, computed when asked: the memory scenario's child
    /// process holds this home too, and tables of values would count as the gateway's memory.
    enum Cycle: Sendable {
        case bools
        case valid([Int])
        case integers(low: Int64, step: Int64, count: Int)
        case floats(low: Double, step: Double, count: Int)

        var count: Int {
            switch self {
            case .bools: 2
            case .valid(let values): values.count
            case .integers(_, _, let count), .floats(_, _, let count): count
            }
        }

        /// Value `k`; value 0 is the builder's starting value.
        func value(_ k: Int) -> CharacteristicValue {
            let k = k % count
            switch self {
            case .bools: return .bool(k == 1)
            case .valid(let values): return .int(Int64(values[k]))
            case .integers(let low, let step, _): return .int(low + Int64(k) * step)
            // Rounded to the step's decimals, so the published text keeps one length per value.
            case .floats(let low, let step, _): return .float(((low + Double(k) * step) * 1_000).rounded() / 1_000)
            }
        }
    }

    /// A characteristic whose value the benchmark changes.
    struct Changeable: Sendable {
        var address: CharacteristicAddress
        /// Has `pw`: takes `/set` commands.
        var isWritable: Bool
        /// Change k (from 1) sets value `k % count`, so two changes in a row always differ and the gateway
        /// publishes every one.
        var cycle: Cycle
    }

    let accessories: [Accessory]
    /// Round-robin order: the first changeable characteristic of every accessory, then the second, …
    let changeable: [Changeable]

    init(accessories count: Int) {
        accessories = (0..<count).map { index in
            InMemoryAccessoryProvider.accessory(
                aid: index + 2, name: "Bench \(index + 1)", serverID: BenchmarkHome.serverID,
                services: BenchmarkHome.services)
        }
        var perAccessory: [[Changeable]] = []
        for accessory in accessories {
            var list: [Changeable] = []
            for service in accessory.services where service.type != .Service.accessoryInformation {
                for c in service.characteristics where c.isReadable {
                    if let cycle = BenchmarkHome.cycle(for: c), cycle.count >= 2 {
                        list.append(
                            Changeable(
                                address: CharacteristicAddress(accessory: accessory.id, iid: c.iid),
                                isWritable: c.isWritable, cycle: cycle))
                    }
                }
            }
            perAccessory.append(list)
        }
        let width = perAccessory.map(\.count).max() ?? 0
        changeable = (0..<width).flatMap { i in perAccessory.compactMap { i < $0.count ? $0[i] : nil } }
    }

    var characteristicCount: Int { accessories.reduce(0) { $0 + $1.allCharacteristics.count } }

    /// Change number `n` (from 0) of the whole stream: which characteristic and its new value. Changes go
    /// round robin over `changeable`, so every value differs from the one before it.
    func change(_ n: Int) -> ValueUpdate {
        let c = changeable[n % changeable.count]
        let round = n / changeable.count + 1
        return ValueUpdate(address: c.address, value: c.cycle.value(round), source: .event)
    }

    /// The values a characteristic cycles through, starting with the builder's starting value: false and
    /// true; the valid values; or up to 100 steps from the minimum. Nil for strings and bytes.
    private static func cycle(for c: Characteristic) -> Cycle? {
        switch c.format {
        case .bool:
            return .bools
        case .uint8, .uint16, .uint32, .uint64, .int:
            if let valid = c.validValues { return .valid(valid) }
            let low = Int64(c.minValue ?? 0)
            let step = Int64(max(1, c.minStep ?? 1))
            let high = Int64(c.maxValue ?? Double(low + 99 * step))
            return .integers(low: low, step: step, count: Int(min(99, (high - low) / step)) + 1)
        case .float:
            let low = c.minValue ?? 0
            let step = c.minStep.flatMap { $0 > 0 ? $0 : nil } ?? 1
            let high = c.maxValue ?? low + 99 * step
            return .floats(low: low, step: step, count: min(100, Int(((high - low) / step).rounded(.down)) + 1))
        default:
            return nil
        }
    }
}
