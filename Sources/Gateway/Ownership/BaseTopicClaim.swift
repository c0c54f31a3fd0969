import JSON

/// Who owns a base topic (docs/DESIGN.md "Owning the base topic"): the instance, its MQTT client id and
/// its host, carried in the retained `bridge/state` together with whether the claim is held (the gateway
/// is connected: starting, or online) or released (a clean stop, or the last will the broker published
/// when the gateway's connection died).
public struct BaseTopicClaim: Sendable, Hashable, CustomStringConvertible {
    /// The gateway's instance id, kept in its state directory (`InstanceIdentity`).
    public var instance: String
    /// The gateway's MQTT client id (`mqtt.client_id`).
    public var clientID: String
    /// The host the gateway runs on, as it names itself.
    public var host: String

    /// A claim by `instance`, connected as `clientID` from `host`.
    public init(instance: String, clientID: String, host: String) {
        self.instance = instance
        self.clientID = clientID
        self.host = host
    }

    /// `client id X on host Y (instance Z)`: how a log line or an error names the claim's owner.
    public var description: String { "client id \(clientID) on host \(host) (instance \(instance))" }

    /// The `bridge/state` payload with this claim: `{"state":…,"claim":"held"|"released","instance":…,
    /// "client_id":…,"host":…}`. `state` keeps its meaning for Home Assistant (`value_json.state`).
    public func statePayload(state: String, held: Bool) -> String {
        let object: JSONObject = [
            "state": .string(state), "claim": held ? "held" : "released", "instance": .string(instance),
            "client_id": .string(clientID), "host": .string(host),
        ]
        return JSONValue.object(object).description
    }
}

/// What the retained `bridge/state` of a base topic says about its owner.
public enum FoundClaim: Sendable, Hashable {
    /// No retained `bridge/state`: nobody ever published under the base topic, or the broker lost it.
    case none
    /// A `bridge/state` without a claim (`{"state":"online"}`), as gateways wrote before they claimed
    /// their base topic: nobody can be named, so it is treated as no claim.
    case unclaimed(state: String)
    /// A claim, held (its gateway is connected) or released (it stopped, or its last will was published).
    case claim(BaseTopicClaim, held: Bool)

    /// Reads a retained `bridge/state` payload (`payload` of `topic`; empty: none).
    /// - Throws: `OwnershipError.unreadableClaim` when it is not such a payload: not a JSON object, no
    ///   `state` string, a `claim` other than `held` or `released`, or a claim without its `instance`,
    ///   `client_id` and `host` strings.
    public init(payload: [UInt8], topic: String) throws(OwnershipError) {
        guard !payload.isEmpty else {
            self = .none
            return
        }
        guard let value = try? JSONValue(parsing: payload, maximumDepth: 4) else {
            throw .unreadableClaim(topic: topic, reason: "it is not JSON")
        }
        do throws(JSONFieldError) {
            let fields = try JSONFields(value)
            let state = try fields.string("state")
            guard let claim = try fields.optionalString("claim") else {
                self = .unclaimed(state: state)
                return
            }
            guard claim == "held" || claim == "released" else {
                throw .invalid("claim", reason: "neither \"held\" nor \"released\"")
            }
            let owner = BaseTopicClaim(
                instance: try fields.string("instance"), clientID: try fields.string("client_id"),
                host: try fields.string("host"))
            guard !owner.instance.isEmpty, owner.instance.utf8.count <= 64 else {
                throw .invalid("instance", reason: "empty, or longer than 64 bytes")
            }
            self = .claim(owner, held: claim == "held")
        } catch {
            throw .unreadableClaim(topic: topic, reason: error.description)
        }
    }
}
