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
        ["\(base)/+/+/+/set", "\(base)/+/+/+/get", "\(base)/+/set", "\(base)/bridge/request/+"]
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
    }

    /// Reads an incoming topic; nil when it is not a command topic under the base.
    public func command(for topic: String) -> Command? {
        guard topic.hasPrefix(base + "/") else { return nil }
        let rest = topic.dropFirst(base.count + 1)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "bridge", parts[1] == "request", !parts[2].isEmpty {
            return .bridgeRequest(String(parts[2]))
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
}
