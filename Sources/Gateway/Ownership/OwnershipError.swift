/// Why a gateway does not start on its base topic (docs/DESIGN.md "Owning the base topic"). Prints as one
/// line that says what to do.
public enum OwnershipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another gateway instance holds the base topic and is connected.
    case claimedByAnother(base: String, owner: BaseTopicClaim)
    /// The retained `bridge/state` is not a payload a gateway writes.
    case unreadableClaim(topic: String, reason: String)
    /// The broker could not be read now (unreachable, or too slow); the caller tries again.
    case brokerNotRead(String)
    /// The instance id file in the state directory cannot be read or written.
    case instanceFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .claimedByAnother(let base, let owner):
            return
                "the base topic \(base)/ is claimed by another gateway that is running: \(owner); stop that one, or give this one another mqtt.base_topic"
        case .unreadableClaim(let topic, let reason):
            return
                "the retained \(topic) is not a claim a gateway writes (\(reason)); nothing was published or cleared. If no gateway uses this base topic, remove it (an empty retained message on \(topic)), or choose another mqtt.base_topic"
        case .brokerNotRead(let reason): return "cannot read the claim on the base topic: \(reason)"
        case .instanceFile(let path, let reason):
            return "cannot use the instance id file \(path): \(reason)"
        }
    }
}
