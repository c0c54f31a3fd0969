/// Why a text is not JSON that `JSONValue(parsing:)` accepts, and the byte offset (from 0) where the
/// reader found out. Prints as one line, e.g. `invalid JSON at byte 17: expected ',' or '}' but found 'x'`.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The input is empty or only white space.
        case empty
        /// The input ended inside a value.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here; `expected` says what could.
        case unexpectedByte(UInt8, expected: String)
        /// A number that does not follow the JSON grammar (e.g. `01`, `1.`, `-`).
        case invalidNumber
        /// A number too large for a Double (e.g. `1e400`).
        case numberOutOfRange
        /// A backslash escape that JSON does not define, or `\u` without four hex digits.
        case invalidEscape
        /// A raw control character (below U+0020) inside a string.
        case controlCharacterInString
        /// A string whose bytes are not UTF-8; the offset is where the string starts.
        case invalidUTF8
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// Something other than white space after the value.
        case trailingData
    }

    /// What was wrong.
    public let reason: Reason
    /// The byte offset in the input, counted from 0.
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "the text is empty"
        case .unexpectedEnd: what = "the text ends in the middle of a value"
        case .unexpectedByte(let b, let expected): what = "expected \(expected) but found \(Self.show(b))"
        case .invalidNumber: what = "malformed number"
        case .numberOutOfRange: what = "number out of range"
        case .invalidEscape: what = "invalid escape sequence in a string"
        case .controlCharacterInString: what = "unescaped control character in a string"
        case .invalidUTF8: what = "the string is not valid UTF-8"
        case .tooDeep(let limit): what = "arrays and objects nested deeper than \(limit) levels"
        case .trailingData: what = "unexpected data after the JSON value"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }

    private static func show(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
    }
}
