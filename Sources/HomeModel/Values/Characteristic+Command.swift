public import JSON

/// What a command asks a characteristic's value to become (docs/DESIGN.md "Values"): the text of a `/set`
/// payload, one JSON scalar of a multi-write object, or a value that is already typed.
public enum CommandPayload: Sendable, Hashable {
    /// The payload of a `/set` message: `true`, `on`, `toggle`, `21.5`, `"heat"`, `secured`, text, base64.
    case text(String)
    /// One value of a multi-write object (`<accessory>/set`, `{"lightbulb":{"brightness":50}}`).
    case json(JSONValue)
    /// A value already of the right kind (a number computed by the caller, a store client's value).
    case value(CharacteristicValue)

    /// The payload as the user sent it, for error messages.
    var shown: String {
        switch self {
        case .text(let text): return text
        case .json(let json): return json.plainText
        case .value(let value): return value.description
        }
    }
}

extension Characteristic {
    /// The value to write for `command`: the one place where a command becomes a value (docs/DESIGN.md
    /// "Values"). The characteristic must have `pw`; the payload is read as its format (see
    /// `parseCommand(_:current:name:)`; `toggle` flips the characteristic's current `value`), then checked
    /// against its rules (see `validate(_:name:)`).
    ///
    /// The result is what goes to the accessory and what a command's result reports. It may differ from
    /// the payload: it is in the format's normal form (`1` becomes `true` for `bool`, `21` becomes `21.0`
    /// for `float`), a number off the step is rounded to the nearest step (53 with a step of 5 is 55), and
    /// `toggle` becomes the opposite of the current value.
    /// - Parameter name: the characteristic's name in error messages (its topic slug, `brightness`).
    /// - Throws: `ValueError` with `.readOnly` without `pw`; the errors of parsing (`.wrongType`,
    ///   `.notAValidName` for an unknown enumeration name, `.unknownCurrentValue` for `toggle`); the
    ///   broken rule (`.belowMinimum`, `.aboveMaximum`, `.notAValidValue`, `.tooLong`,
    ///   `.outOfFormatRange`).
    public func valueToWrite(for command: CommandPayload, name: String) throws(ValueError) -> CharacteristicValue {
        guard isWritable else { throw ValueError(characteristic: name, value: command.shown, rule: .readOnly) }
        let parsed: CharacteristicValue
        switch command {
        case .text(let text): parsed = try parseCommand(text, current: value, name: name)
        case .json(let scalar): parsed = try parseCommand(json: scalar, current: value, name: name)
        case .value(let value): parsed = value
        }
        return try validate(parsed, name: name)
    }
}
