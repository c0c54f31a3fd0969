/// A JSON value as Home Assistant's REST API returns it (state attributes, service responses).
public enum HomeAssistantValue: Sendable, Hashable, Decodable, CustomStringConvertible {
    case string(String)
    /// Every JSON number, integral or not.
    case number(Double)
    case bool(Bool)
    case array([HomeAssistantValue])
    case object([String: HomeAssistantValue])
    case null

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([HomeAssistantValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: HomeAssistantValue].self))
        }
    }

    /// The string, when the value is one; likewise `number`, `array`, and `strings`/`numbers` for arrays.
    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var number: Double? { if case .number(let d) = self { return d } else { return nil } }
    public var array: [HomeAssistantValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var strings: [String]? { array?.compactMap(\.string) }
    public var numbers: [Double]? { array?.compactMap(\.number) }

    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .number(let d): return String(d)
        case .bool(let b): return String(b)
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o):
            return "{" + o.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        case .null: return "null"
        }
    }
}

/// One entity's state as `GET /api/states` returns it.
public struct HomeAssistantState: Sendable, Hashable, Decodable, CustomStringConvertible {
    public let entityID: String
    /// `on`, `off`, `unavailable`, `21.5`, `locked`, …
    public let state: String
    public let attributes: [String: HomeAssistantValue]

    enum CodingKeys: String, CodingKey {
        case entityID = "entity_id"
        case state, attributes
    }

    /// The entity's domain: `light` of `light.kitchen_lamp`.
    public var domain: String { String(entityID.prefix { $0 != "." }) }

    /// A light's colour-temperature range in whole mireds, as the discovery config gave it: 2024.3 shows
    /// `min_mireds`/`max_mireds`; since 2025 Home Assistant shows only `max_color_temp_kelvin` and
    /// `min_color_temp_kelvin` (1,000,000 / mireds, rounded down), so those are turned back and rounded.
    public var miredRange: ClosedRange<Double>? {
        if let low = attributes["min_mireds"]?.number, let high = attributes["max_mireds"]?.number, low <= high {
            return low...high
        }
        guard let warmest = attributes["min_color_temp_kelvin"]?.number,
            let coolest = attributes["max_color_temp_kelvin"]?.number, warmest > 0, coolest >= warmest
        else { return nil }
        return (1_000_000 / coolest).rounded()...(1_000_000 / warmest).rounded()
    }

    public var description: String { "\(entityID)=\(state) \(HomeAssistantValue.object(attributes))" }
}
