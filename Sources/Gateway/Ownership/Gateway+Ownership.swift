import JSON
public import MQTT

/// The gateway owns its base topic (docs/DESIGN.md "Owning the base topic"): before it publishes or clears
/// anything it reads the retained `bridge/state`, refuses to start when another instance holds it, and
/// then carries its own claim in every `bridge/state` it publishes, its last will included.
extension Gateway {
    /// Reads the claim on the base topic (on a connection of its own, without a last will, so that
    /// nothing this gateway does before it wins can change what the broker holds) and decides: a claim by
    /// another instance that is held refuses, one that is released is taken over (logged), this
    /// instance's own is taken again. Call it before the MQTT client connects (its last will carries
    /// this gateway's claim).
    /// - Throws: `OwnershipError.claimedByAnother`, `.unreadableClaim` (nothing is changed then), or
    ///   `.brokerNotRead` when the broker cannot be read now (try again).
    public func claimBaseTopic() async throws(OwnershipError) -> ClaimOutcome {
        guard let claim = parts.ownership.claim else {
            parts.ownership.outcome = .free
            return .free
        }
        let topic = topics.bridgeState
        let messages: [MQTTMessage]
        do throws(MQTTError) {
            messages = try await mqtt.retainedMessages(
                matching: [topic], endMarker: "\(topics.base)-claim/\(claim.instance)", timeout: Gateway.scanTimeout,
                keepingPayloadOf: { _ in true })
        } catch {
            throw .brokerNotRead(error.description)
        }
        let found = try FoundClaim(payload: messages.first { $0.topic == topic }?.payload ?? [], topic: topic)
        let outcome = try ClaimOutcome.decide(found, own: claim, base: topics.base)
        switch outcome {
        case .takenOver(let owner):
            logger.warning(
                "took over the base topic \(topics.base)/ from another gateway, \(owner), whose claim was released (it stopped, or the broker published its last will); the topics it published are left as they are during this run"
            )
        case .own(wasHeld: true):
            logger.info(
                "the claim on \(topics.base)/ is this instance's own, left held by a run that did not stop cleanly; taken again"
            )
        case .own, .free: break
        }
        parts.ownership.outcome = outcome
        return outcome
    }

    /// Calls `handler` once, with the line to print, when this gateway finds after a reconnect that
    /// another gateway took its base topic over (`keepsClaim()`); the gateway has stopped by then,
    /// publishing nothing more, and the caller ends the process.
    public func onClaimLost(_ handler: @escaping @Sendable (_ reason: String) -> Void) {
        parts.ownership.onLost = handler
    }

    /// After a reconnect, before anything is published again: whether the claim is still this
    /// gateway's. While it was cut off the broker published its last will (the claim released), and
    /// another gateway may have taken the base topic over: then this one stops at once without
    /// publishing anything (not even `offline`, which is the other's to say) and says so through
    /// `onClaimLost(_:)`. When the broker cannot be read now, the claim is taken as kept (logged).
    func keepsClaim() async -> Bool {
        guard let claim = parts.ownership.claim, !isStopped else { return !isStopped }
        let topic = topics.bridgeState
        let found: FoundClaim
        do throws(MQTTError) {
            let messages = try await mqtt.retainedMessages(
                matching: [topic], endMarker: "\(topics.base)-claim/\(claim.instance)", timeout: Gateway.scanTimeout,
                keepingPayloadOf: { _ in true })
            found =
                (try? FoundClaim(payload: messages.first { $0.topic == topic }?.payload ?? [], topic: topic)) ?? .none
        } catch {
            logger.warning(
                "cannot read the claim on \(topic) after the reconnect: \(error); taken as still this gateway's")
            return true
        }
        logger.debug("after the reconnect the broker holds this claim on \(topic): \(found)")
        guard case .claim(let owner, held: true) = found, owner.instance != claim.instance else { return true }
        parts.ownership.lostTo = owner
        let reason =
            "another gateway took the base topic \(topics.base)/ over while this one was cut off from the broker: \(owner); this one stops without publishing anything more"
        // Stopped first: the line is not published on bridge/logging either.
        await stop()
        logger.error("\(reason)")
        parts.ownership.onLost?(reason)
        return false
    }

    /// Publishes the held claim (`bridge/state` offline, claim held) once the MQTT client is connected,
    /// before the store's first sync: from then on another gateway that starts finds the base topic
    /// taken. `bridge/state` says online only when everything is published (`run()`).
    public func holdClaim() async {
        guard let claim = parts.ownership.claim, !isStopped else { return }
        let message = MQTTMessage(
            topic: topics.bridgeState, string: claim.statePayload(state: "offline", held: true), qos: .atLeastOnce,
            retain: true)
        do throws(MQTTError) {
            try mqtt.publish([message])
        } catch {
            logger.warning("cannot publish the claim on \(topics.bridgeState): \(error)")
        }
    }

    /// The `bridge/state` payload for `online` or offline, with this gateway's claim (held while online,
    /// released when offline), or without one when it claims nothing.
    func bridgeStatePayload(online: Bool) -> String {
        Gateway.bridgeStatePayload(online: online, claim: parts.ownership.claim)
    }

    static func bridgeStatePayload(online: Bool, claim: BaseTopicClaim?) -> String {
        let state = online ? "online" : "offline"
        return claim?.statePayload(state: state, held: online)
            ?? JSONValue.object(["state": .string(state)]).description
    }

    /// The last will to give the MQTT client: `bridge/state` offline with `claim` released (or
    /// `{"state":"offline"}` without a claim), retained, QoS 1.
    public static func lastWill(baseTopic: String, claim: BaseTopicClaim? = nil) -> MQTTMessage {
        MQTTMessage(
            topic: TopicScheme(base: baseTopic).bridgeState, string: bridgeStatePayload(online: false, claim: claim),
            qos: .atLeastOnce, retain: true)
    }
}
