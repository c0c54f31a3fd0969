/// A number read from command text: an integer when it has no fraction or exponent and fits 64 bits,
/// else a double.
enum ParsedNumber: Equatable {
    case int(Int64)
    case uint(UInt64)
    case double(Double)

    /// What number text reads as.
    enum Reading: Equatable {
        case number(ParsedNumber)
        /// The text is no number at all.
        case notANumber
        /// The text is a number that does not round-trip to a finite double: too large (read as
        /// infinity), or not zero but read as zero.
        case unrepresentable(ValueError.NumberLimit)
    }

    /// Reads a JSON-style number (`42`, `-7`, `21.5`, `1e3`, and a leading `+`), ignoring surrounding
    /// white space. Hexadecimal, `inf`, `nan`, and numbers that do not survive the reading (`1e400`,
    /// `1e-400`) are refused, although Swift's `Double(String)` would take them.
    init?(text: String) {
        guard case .number(let number) = Self.read(text) else { return nil }
        self = number
    }

    /// Reads number text as `init?(text:)` does, telling a number that a double cannot hold from text
    /// that is no number.
    static func read(_ text: String) -> Reading {
        let s = text.trimmingWhitespace
        guard let first = s.first, first.isNumber || first == "-" || first == "+" || first == ".",
            s.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) })
        else { return .notANumber }
        if !s.contains(where: { ".eE".contains($0) }) {
            if let i = Int64(s) { return .number(.int(i)) }
            if let u = UInt64(s) { return .number(.uint(u)) }
        }
        guard let d = Double(s) else { return .notANumber }
        guard d.isFinite else { return .unrepresentable(.overflow) }
        // Double(String) rounds a number below the smallest subnormal to zero without a word.
        if d == 0, Self.mantissaIsNonZero(s) { return .unrepresentable(.underflow) }
        return .number(.double(d))
    }

    /// Whether a digit before the exponent is not 0 (`0.000`, `0e5` are zero; `1e-400` is not).
    private static func mantissaIsNonZero(_ s: String) -> Bool {
        for c in s {
            if c == "e" || c == "E" { return false }
            if c.isNumber, c != "0" { return true }
        }
        return false
    }

    /// The number as a characteristic value of `format`: integers for integer formats (nil when it has a
    /// fraction), a double for `float`, and nil for other formats.
    func value(for format: CharacteristicFormat) -> CharacteristicValue? {
        switch (self, format.isInteger, format == .float) {
        case (.int(let i), true, _): return .int(i)
        case (.uint(let u), true, _): return CharacteristicValue.integer(u)
        case (.double(let d), true, _):
            guard d.rounded() == d else { return nil }
            if d >= 0, d < 1.8446744073709552e19 { return CharacteristicValue.integer(UInt64(d)) }
            return d < 0 && d >= -9.223372036854775808e18 ? .int(Int64(d)) : nil
        case (.int(let i), _, true): return .float(Double(i))
        case (.uint(let u), _, true): return .float(Double(u))
        case (.double(let d), _, true): return .float(d)
        default: return nil
        }
    }
}

extension CharacteristicValue {
    /// An unsigned integer as `.int` when it fits Int64, else `.uint` (the store's normal form).
    static func integer(_ u: UInt64) -> CharacteristicValue { u <= UInt64(Int64.max) ? .int(Int64(u)) : .uint(u) }
}

extension String {
    /// The text without leading and trailing white space and line breaks: the Unicode White_Space
    /// characters, the set Foundation's `.whitespacesAndNewlines` trims. Without Foundation, which on
    /// Linux makes this a slow call on the path of every `/set`; text with nothing to trim is returned
    /// as it is.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.first, let last = scalars.last, first.isWhiteSpace || last.isWhiteSpace
        else { return self }
        guard let start = scalars.firstIndex(where: { !$0.isWhiteSpace }),
            let end = scalars.lastIndex(where: { !$0.isWhiteSpace })
        else { return "" }
        return String(scalars[start...end])
    }
}

extension Unicode.Scalar {
    /// Unicode White_Space; ASCII answered without the property table, whose look-up was a measurable
    /// part of every `/set` (hap2mqtt-bench command, Benchmarks/README.md).
    fileprivate var isWhiteSpace: Bool {
        value < 0x80 ? value == 0x20 || (0x09...0x0D).contains(value) : properties.isWhitespace
    }
}
