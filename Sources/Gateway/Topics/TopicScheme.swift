/// The topic names of docs/DESIGN.md "Topics", under one base topic (default `hap2mqtt`).
public struct TopicScheme: Sendable, Hashable {
    /// The base topic, without a trailing `/`.
    public let base: String

    /// The longest base topic (and Home Assistant prefix or status topic) the configuration takes, in
    /// UTF-8 bytes. With slugs of at most `Slug.maximumLength` every topic stays far below the 65,535
    /// bytes MQTT and mosquitto accept (MQTT 5 §1.5.4).
    public static let maximumBaseLength = 256

    public init(base: String) {
        var b = base
        while b.hasSuffix("/") { b.removeLast() }
        self.base = b
    }

    public var bridgeState: String { "\(base)/bridge/state" }
    public var bridgeInfo: String { "\(base)/bridge/info" }
    public var bridgeAccessories: String { "\(base)/bridge/accessories" }
    public var bridgeEvent: String { "\(base)/bridge/event" }
    public var bridgeHealth: String { "\(base)/bridge/health" }
    public var bridgeDiscovered: String { "\(base)/bridge/discovered" }
    public var bridgeLogging: String { "\(base)/bridge/logging" }
    public func bridgeRequest(_ command: String) -> String { "\(base)/bridge/request/\(command)" }
    public func bridgeResponse(_ command: String) -> String { "\(base)/bridge/response/\(command)" }

    /// `<base>/bridge/scenes`: the stored scenes (retained).
    public var bridgeScenes: String { "\(base)/bridge/scenes" }
    /// `<base>/bridge/groups`: the groups (retained).
    public var bridgeGroups: String { "\(base)/bridge/groups" }
    /// `<base>/groups/<group>`: a group's aggregated state (retained); `…/set` takes its commands.
    public func group(_ slug: String) -> String { "\(base)/\(Self.groupsLevel)/\(slug)" }
    /// The level under the base topic where the groups' topics are (a reserved slug, `Slug.reserved`).
    public static let groupsLevel = "groups"

    /// `<base>/<accessory>`: the accessory's JSON.
    public func accessory(_ slug: String) -> String { "\(base)/\(slug)" }
    public func availability(_ slug: String) -> String { "\(base)/\(slug)/availability" }
    /// `<base>/<accessory>/<service>/<characteristic>`: the value alone.
    public func characteristic(_ accessory: String, _ service: String, _ characteristic: String) -> String {
        "\(base)/\(accessory)/\(service)/\(characteristic)"
    }

    /// `<base>/<accessory>/<service>/snapshot`: a camera's latest snapshot, a JPEG (retained); a message to
    /// `…/snapshot/get` asks for a new one.
    public func snapshot(_ accessory: String, _ service: String) -> String {
        "\(base)/\(accessory)/\(service)/snapshot"
    }

    /// The topic filters the gateway subscribes to for commands.
    public var commandFilters: [String] {
        [
            "\(base)/+/+/+/set", "\(base)/+/+/+/get", "\(base)/+/set", "\(base)/bridge/request/+",
            "\(base)/\(Self.groupsLevel)/+/set",
        ]
    }

    /// What an incoming topic asks for.
    public enum Command: Sendable, Hashable {
        /// `<base>/<accessory>/<service>/<characteristic>/set`; `state` is the state topic.
        case set(state: String)
        /// `<base>/<accessory>/<service>/<characteristic>/get`.
        case get(state: String)
        /// `<base>/<accessory>/set`, several writes in one JSON object.
        case accessorySet(accessory: String)
        /// `<base>/bridge/request/<command>`.
        case bridgeRequest(String)
        /// `<base>/groups/<group>/set`, a group's command.
        case groupSet(group: String)

        /// Whether the command writes to an accessory (`/set`, `<accessory>/set`).
        public var isWrite: Bool {
            switch self {
            case .set, .accessorySet, .groupSet: return true
            case .get, .bridgeRequest: return false
            }
        }
    }

    /// Reads an incoming topic; nil when it is not a command topic under the base.
    public func command(for topic: String) -> Command? {
        asciiCommand(for: topic) ?? characterCommand(for: topic)
    }

    /// `command(for:)` character by character, for any topic.
    func characterCommand(for topic: String) -> Command? {
        guard topic.hasPrefix(base + "/") else { return nil }
        let rest = topic.dropFirst(base.count + 1)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "bridge", parts[1] == "request", !parts[2].isEmpty {
            return .bridgeRequest(String(parts[2]))
        }
        if parts.count == 3, parts[0] == Self.groupsLevel, parts[2] == "set", !parts[1].isEmpty {
            return .groupSet(group: String(parts[1]))
        }
        if parts.count == 2, parts[1] == "set", parts[0] != "bridge" {
            return .accessorySet(accessory: String(parts[0]))
        }
        if parts.count == 4, parts[0] != "bridge", !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty {
            let state = String(topic.dropLast(4))
            if parts[3] == "set" { return .set(state: state) }
            if parts[3] == "get" { return .get(state: state) }
        }
        return nil
    }

    /// `command(for:)` read byte by byte, for a topic and base that are ASCII alone (every command
    /// topic of a plain configuration): the same answer, since each byte is then a character, without
    /// the character-by-character split and its strings, a measurable part of every `/set`
    /// (hap2mqtt-bench command, Benchmarks/README.md). nil when either is not ASCII (or not stored
    /// contiguously); `.some(nil)` when the topic is no command.
    func asciiCommand(for topic: String) -> Command?? {
        let command = topic.utf8.withContiguousStorageIfAvailable { topic -> Command?? in
            base.utf8.withContiguousStorageIfAvailable { base -> Command?? in
                guard Self.isASCII(topic), Self.isASCII(base) else { return nil }
                return .some(Self.asciiCommand(topic, base: base))
            } ?? nil
        }
        return command ?? nil
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 }
    }

    private static func asciiCommand(_ topic: UnsafeBufferPointer<UInt8>, base: UnsafeBufferPointer<UInt8>)
        -> Command?
    {
        let slash = UInt8(ascii: "/")
        guard topic.count > base.count, topic[base.count] == slash,
            UnsafeBufferPointer(rebasing: topic[..<base.count]).elementsEqual(base)
        else { return nil }
        // The levels after the base, as byte ranges; more than four is no command.
        var levels = (0..<0, 0..<0, 0..<0, 0..<0)
        var count = 0
        var start = base.count + 1
        func add(_ range: Range<Int>) {
            switch count {
            case 0: levels.0 = range
            case 1: levels.1 = range
            case 2: levels.2 = range
            default: levels.3 = range
            }
            count += 1
        }
        for index in start..<topic.count where topic[index] == slash {
            guard count < 3 else { return nil }
            add(start..<index)
            start = index + 1
        }
        add(start..<topic.count)
        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: topic[range]), as: UTF8.self)
        }
        func level(_ range: Range<Int>, is text: StaticString) -> Bool {
            UnsafeBufferPointer(rebasing: topic[range]).elementsEqual(
                UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        switch count {
        case 3 where level(levels.0, is: "bridge") && level(levels.1, is: "request") && !levels.2.isEmpty:
            return .bridgeRequest(string(levels.2))
        case 3 where level(levels.0, is: "groups") && level(levels.2, is: "set") && !levels.1.isEmpty:
            return .groupSet(group: string(levels.1))
        case 2 where level(levels.1, is: "set") && !level(levels.0, is: "bridge"):
            return .accessorySet(accessory: string(levels.0))
        case 4 where !level(levels.0, is: "bridge") && !levels.0.isEmpty && !levels.1.isEmpty && !levels.2.isEmpty:
            // The state topic: everything before `/set` or `/get`.
            if level(levels.3, is: "set") { return .set(state: string(0..<(levels.3.lowerBound - 1))) }
            if level(levels.3, is: "get") { return .get(state: string(0..<(levels.3.lowerBound - 1))) }
            return nil
        default:
            return nil
        }
    }
}
