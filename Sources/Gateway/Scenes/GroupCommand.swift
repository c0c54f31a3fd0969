import JSON

/// A group's `/set` payload, read and checked before anything is written (docs/scenes-and-groups.md):
/// `{"state":"ON"|"OFF"|"TOGGLE"}`, `{"brightness":0…100}` (lights), `{"position":0…100}` or
/// `{"state":"OPEN"|"CLOSE"}` (covers), or the bare words `ON`, `OFF`, `TOGGLE`, `OPEN`, `CLOSE`.
struct GroupCommand: Sendable, Hashable {
    /// What `"state"` asks of the members' On.
    enum Power: Sendable, Hashable {
        case on, off, toggle
    }

    var power: Power?
    /// Brightness in percent for every light that has one.
    var brightness: Int?
    /// Target position in percent for every cover.
    var position: Int?

    /// The command in `payload` for a group of `kind`, or every reason it is not one, in one error.
    static func parse(_ payload: [UInt8], kind: GroupKind) -> Result<GroupCommand, GatewayError> {
        let object: JSONObject
        if let json = try? JSONValue(parsing: payload), let parsed = json.objectValue {
            object = parsed
        } else {
            let word = String(decoding: payload, as: UTF8.self)
            guard !word.isEmpty, word.count <= 16, !word.contains("{") else {
                return .failure(.invalidPayload("the payload is neither a JSON object nor ON, OFF or TOGGLE"))
            }
            object = ["state": .string(word)]
        }
        var command = GroupCommand()
        var problems: [String] = []
        for member in object {
            switch (member.key, kind) {
            case ("state", .cover):
                switch member.value.stringValue?.uppercased() {
                case "OPEN"?: command.position = 100
                case "CLOSE"?, "CLOSED"?: command.position = 0
                default: problems.append(#""state" of a cover group is "OPEN" or "CLOSE""#)
                }
            case ("state", _):
                switch (member.value.stringValue?.uppercased(), member.value.boolValue) {
                case ("ON"?, _), (_, true?): command.power = .on
                case ("OFF"?, _), (_, false?): command.power = .off
                case ("TOGGLE"?, _): command.power = .toggle
                default: problems.append(#""state" is "ON", "OFF" or "TOGGLE""#)
                }
            case ("brightness", .light):
                command.brightness = percent(member.value, "brightness", &problems)
            case ("position", .cover):
                command.position = percent(member.value, "position", &problems)
            default:
                problems.append("a \(kind.rawValue) group takes no \(JSONString.quoted(String(member.key.prefix(40))))")
            }
        }
        if problems.isEmpty, command == GroupCommand() { problems.append("the payload asks for nothing") }
        guard problems.isEmpty else { return .failure(.invalidPayload(problems.joined(separator: "; "))) }
        return .success(command)
    }

    private static func percent(_ value: JSONValue, _ name: String, _ problems: inout [String]) -> Int? {
        guard let number = value.doubleValue, number.isFinite, (0...100).contains(number) else {
            problems.append("\"\(name)\" is a number from 0 to 100")
            return nil
        }
        return Int(number.rounded())
    }
}
