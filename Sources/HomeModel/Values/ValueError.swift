internal import JSON

/// Why a value was refused for a characteristic (docs/DESIGN.md "Values"). It names the characteristic, the
/// value and the rule it broke, and prints as one line, e.g.
/// `brightness: 150 is above the maximum 100`.
public struct ValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule that was broken.
    public enum Rule: Sendable, Hashable {
        /// The text or JSON could not be read as the characteristic's format.
        case wrongType(expected: CharacteristicFormat)
        case belowMinimum(Double)
        case aboveMaximum(Double)
        case notAValidValue([Int])
        /// A name that is none of the characteristic's valid values; the names it takes, each with its value
        /// (`secured (1)`).
        case notAValidName([String])
        case tooLong(maxLength: Int)
        /// The characteristic has no `pw` permission.
        case readOnly
        /// Outside the range the format itself can hold (e.g. 256 for uint8).
        case outOfFormatRange
        /// `toggle` was asked for while the current value is not known yet.
        case unknownCurrentValue
        /// The text is a number, but no finite value of the format: too large (`1e400`), or too close
        /// to zero (`1e-400`, which would be written as 0).
        case unrepresentable(NumberLimit)
    }

    /// Which end of the number line a value that cannot be held fell off.
    public enum NumberLimit: Sendable, Hashable {
        /// Larger in magnitude than the largest finite value.
        case overflow
        /// Not zero, yet closer to zero than the smallest value, so it would be read as zero.
        case underflow
    }

    /// The characteristic's slug or type name, e.g. `brightness`.
    public var characteristic: String
    /// The offending value as received.
    public var value: String
    public var rule: Rule

    public init(characteristic: String, value: String, rule: Rule) {
        self.characteristic = characteristic
        self.value = value
        self.rule = rule
    }

    public var description: String {
        // Control characters escaped, so the message stays one line.
        let v = JSONString.escapingControlCharacters(value.count > 64 ? String(value.prefix(61)) + "..." : value)
        switch rule {
        case .wrongType(let f): return "\(characteristic): \(quoted(v)) is not a valid \(f.rawValue) value"
        case .belowMinimum(let m):
            return "\(characteristic): \(v) is below the minimum \(CharacteristicValue.format(m))"
        case .aboveMaximum(let m):
            return "\(characteristic): \(v) is above the maximum \(CharacteristicValue.format(m))"
        case .notAValidValue(let vs):
            return
                "\(characteristic): \(quoted(v)) is not one of the valid values \(vs.map(String.init).joined(separator: ", "))"
        case .notAValidName(let names):
            return "\(characteristic): \(quoted(v)) is not one of the valid values \(names.joined(separator: ", "))"
        case .tooLong(let n): return "\(characteristic): \(quoted(v)) is longer than \(n) bytes"
        case .readOnly: return "\(characteristic): cannot write \(quoted(v)), the characteristic is read-only"
        case .outOfFormatRange: return "\(characteristic): \(v) does not fit the characteristic's format"
        case .unknownCurrentValue:
            return "\(characteristic): \(quoted(v)) needs the current value, which is not known yet"
        case .unrepresentable(.overflow):
            return "\(characteristic): \(v) is too large for a number: it would not be finite"
        case .unrepresentable(.underflow):
            return "\(characteristic): \(v) is too close to zero for a number: it would be written as 0"
        }
    }

    private func quoted(_ s: String) -> String { "'\(s)'" }
}
