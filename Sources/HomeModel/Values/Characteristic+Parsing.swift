internal import Foundation
internal import JSON

/// Reading MQTT command payloads into values (docs/DESIGN.md "Values"): the first step of
/// `valueToWrite(for:name:)`. Parsing only turns text into a value of the characteristic's format;
/// `validate(_:name:)` then checks range, step and valid values.
extension Characteristic {
    /// Parses the payload of a `/set` message for this characteristic.
    ///
    /// - `bool`: `true`/`false`, `1`/`0`, `on`/`off` in any case, and `toggle`, which flips `current`.
    /// - integer formats and `float`: a JSON number or numeric text; surrounding white space is ignored.
    /// - enumerations (integer formats with valid values from the accessory or the catalog): the integer,
    ///   or the valid-value name in any case, ignoring everything but letters and digits (`secured`,
    ///   `SECURED`, `heat`, `counter_clockwise`).
    /// - `string`: the raw text; `tlv8` and `data`: base64; `array` and `dict`: the JSON text.
    /// - `""` (`CharacteristicValue.emptyPayload`) is the empty string, or empty `tlv8`/`data`: the form
    ///   in which an empty value is published, since an empty retained message would delete its topic.
    ///
    /// For `bool` and the number formats, a JSON string literal (`"21.5"`, `"heat"`, `"on"`) is read as
    /// its unescaped content, since JSON-minded clients quote what they send; the other formats take the
    /// quotes as part of the value (a string's raw text, a JSON text that is a string).
    ///
    /// - Parameters:
    ///   - current: the characteristic's current value, needed by `toggle`.
    ///   - name: the characteristic's slug, for the error message.
    /// - Throws: `ValueError` with `.wrongType` when the text is not a value of the format,
    ///   `.notAValidName` for an unknown enumeration name, `.unknownCurrentValue` for `toggle` without
    ///   a current value.
    func parseCommand(_ text: String, current: CharacteristicValue?, name: String) throws(ValueError)
        -> CharacteristicValue
    {
        if format == .bool || format.isInteger || format == .float,
            let content = text.trimmingWhitespace.jsonStringLiteralContent
        {
            return try parseBare(content, shown: text, current: current, name: name)
        }
        return try parseBare(text, shown: text, current: current, name: name)
    }

    /// Parses payload text that is not a JSON string literal; `shown` is the payload as it arrived, for
    /// the error message.
    private func parseBare(_ text: String, shown: String, current: CharacteristicValue?, name: String)
        throws(ValueError) -> CharacteristicValue
    {
        let trimmed = text.trimmingWhitespace
        let wrongType = ValueError(characteristic: name, value: shown, rule: .wrongType(expected: format))
        switch format {
        case .bool:
            switch trimmed.lowercased() {
            case "true", "1", "on": return .bool(true)
            case "false", "0", "off": return .bool(false)
            case "toggle":
                guard let now = current?.boolValue else {
                    throw ValueError(characteristic: name, value: shown.trimmingWhitespace, rule: .unknownCurrentValue)
                }
                return .bool(!now)
            default: throw wrongType
            }
        case .uint8, .uint16, .uint32, .uint64, .int, .float:
            switch ParsedNumber.read(trimmed) {
            case .number(let number):
                guard let value = number.value(for: format) else { throw wrongType }
                return value
            case .unrepresentable(let limit):
                throw ValueError(characteristic: name, value: shown, rule: .unrepresentable(limit))
            case .notANumber: break
            }
            if let names = enumerationNames, !names.isEmpty {
                guard let value = names.first(where: { ValidValue.matchKey($0.name) == ValidValue.matchKey(trimmed) })
                else {
                    let allowed = allowedValues
                    let taken = names.filter { allowed.contains($0.value) }.map {
                        "\(HAPCatalog.snakeCase($0.name)) (\($0.value))"
                    }
                    throw ValueError(characteristic: name, value: shown, rule: .notAValidName(taken))
                }
                return .int(Int64(value.value))
            }
            throw wrongType
        case .string: return .string(text == CharacteristicValue.emptyPayload ? "" : text)
        case .tlv8, .data:
            if trimmed == CharacteristicValue.emptyPayload { return .data([]) }
            guard let bytes = Base64.decode(trimmed) else { throw wrongType }
            return .data(bytes)
        case .array, .dictionary:
            guard !trimmed.isEmpty else { throw wrongType }
            return .json(trimmed)
        }
    }

    /// Parses one JSON value of a multi-write object (`<accessory>/set`,
    /// `{"lightbulb":{"on":true,"brightness":50}}`) with the rules of `parseCommand(_:current:name:)`: a
    /// JSON string is read like a bare payload; a JSON boolean suits `bool`; a JSON number suits numbers,
    /// and `bool` when it is 0 or 1.
    /// - Throws: `ValueError` as `parseCommand(_:current:name:)` does; `null`, an array and an object are
    ///   `.wrongType`.
    func parseCommand(json: JSONValue, current: CharacteristicValue?, name: String) throws(ValueError)
        -> CharacteristicValue
    {
        let number: ParsedNumber
        switch json {
        // Already unescaped by the JSON parser: quotes inside are content, not another literal.
        case .string(let s): return try parseBare(s, shown: s, current: current, name: name)
        case .bool(let b) where format == .bool: return .bool(b)
        case .int(let i): number = .int(i)
        case .uint(let u): number = .uint(u)
        case .double(let d): number = .double(d)
        case .null, .bool, .array, .object:
            throw ValueError(characteristic: name, value: json.plainText, rule: .wrongType(expected: format))
        }
        if format == .bool, let b = number.value(for: .uint8)?.boolValue { return .bool(b) }
        guard let value = number.value(for: format) else {
            throw ValueError(characteristic: name, value: json.plainText, rule: .wrongType(expected: format))
        }
        return value
    }

    /// The named values of an enumerated characteristic, from the catalog; nil when the catalog names no
    /// values for it. Names may map to integers the accessory does not accept: `validate` refuses those.
    var enumerationNames: [ValidValue]? {
        guard format.isInteger, let info = HAPCatalog.characteristic(type), !info.validValues.isEmpty else {
            return nil
        }
        return info.validValues
    }

    /// The integers an enumeration accepts: the accessory's valid values, else the catalog's.
    var allowedValues: [Int] {
        validValues ?? HAPCatalog.characteristic(type)?.validValues.map(\.value) ?? []
    }
}

extension JSONValue {
    /// The value as a bare payload would carry it, for error messages: a string's own text, any other
    /// value as its JSON.
    var plainText: String {
        guard case .string(let s) = self else { return description }
        return s
    }
}
