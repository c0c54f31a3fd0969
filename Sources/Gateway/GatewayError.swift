/// Why the gateway refused a command. Prints as one line that tells the user what to change.
public enum GatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A slug that cannot be used.
    case invalidSlug(String, reason: String)
    /// A topic that names no accessory, service or characteristic the gateway publishes.
    case unknownTopic(String)
    /// A payload that is not what the topic takes.
    case invalidPayload(String)
    /// A command payload larger than `mqtt.max_command_size`.
    case payloadTooLarge(size: Int, limit: Int)
    /// A command to an accessory its options exclude (`bridge/request/options`), by its slug.
    case excludedAccessory(String)
    /// The slug map (`slugs.json`) could not be saved, with why: a rename is not made, since the next start
    /// would undo it.
    case slugMapNotSaved(String)

    public var description: String {
        switch self {
        case .invalidSlug(let s, let why): return "cannot use '\(s)' as a name: \(why)"
        case .unknownTopic(let t):
            return "no accessory, service or characteristic at \(t); see bridge/accessories for the topics"
        case .invalidPayload(let why): return why
        case .payloadTooLarge(let size, let limit):
            return "the payload is \(size) bytes; commands may be at most \(limit) bytes (mqtt.max_command_size)"
        case .excludedAccessory(let slug):
            return
                "accessory '\(slug)' is excluded by its options and takes no commands; bridge/request/options {\"accessory\":\"\(slug)\",\"options\":{\"exclude\":false}} brings it back"
        case .slugMapNotSaved(let why): return "cannot save the slug map: \(why); the accessory keeps its topics"
        }
    }
}
