import JSON

/// A group's state from its members' values (docs/scenes-and-groups.md "The group's state"), the rule in
/// one place:
///
/// - lights, switches, outlets: `"state"` is `"ON"` when any member is on (zigbee2mqtt's default for a
///   group), `"OFF"` when every member that tells its state is off, null when none tells it;
/// - lights: `"brightness"` is the mean brightness (0–100, rounded) of the members that are on, or of all
///   members when none is on; absent when no member has a brightness;
/// - covers: `"position"` is the mean current position (0–100, rounded) of the members; `"state"` is
///   `"OPEN"` when any member is open at all (position above 0), else `"CLOSED"`; null without positions.
///
/// A member that tells nothing (unreachable, its values not read yet) is left out of every mean.
enum GroupState {
    /// What one member tells now.
    struct Member: Sendable, Hashable {
        var on: Bool?
        var brightness: Double?
        var position: Double?

        init(on: Bool? = nil, brightness: Double? = nil, position: Double? = nil) {
            self.on = on
            self.brightness = brightness
            self.position = position
        }
    }

    /// The state JSON of a group of `kind` whose members tell `members`.
    static func aggregate(_ kind: GroupKind, _ members: [Member]) -> JSONObject {
        switch kind {
        case .light, .switch, .outlet:
            let states = members.compactMap(\.on)
            let anyOn = states.contains(true)
            var state: JSONObject = ["state": states.isEmpty ? .null : .string(anyOn ? "ON" : "OFF")]
            if kind == .light {
                let lit = members.filter { $0.on == true }.compactMap(\.brightness)
                let all = members.compactMap(\.brightness)
                if let mean = mean(anyOn && !lit.isEmpty ? lit : all) { state.append("brightness", JSONValue(mean)) }
            }
            return state
        case .cover:
            let positions = members.compactMap(\.position)
            guard let mean = mean(positions) else { return ["state": .null, "position": .null] }
            return [
                "state": .string(positions.contains { $0 > 0 } ? "OPEN" : "CLOSED"), "position": JSONValue(mean),
            ]
        }
    }

    /// The rounded mean, nil for none.
    private static func mean(_ values: [Double]) -> Int? {
        guard !values.isEmpty else { return nil }
        return Int((values.reduce(0, +) / Double(values.count)).rounded())
    }
}
