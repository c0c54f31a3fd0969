/// A number read from command text: an integer when it has no fraction or exponent and fits 64 bits,
/// else a double.
enum ParsedNumber: Equatable {
    case int(Int64)
    case uint(UInt64)
    case double(Double)

    /// Reads a JSON-style number (`42`, `-7`, `21.5`, `1e3`, and a leading `+`), ignoring surrounding
    /// white space. Hexadecimal, `inf`, `nan` and anything that is not finite are refused, although
    /// Swift's `Double(String)` would take them.
    init?(text: String) {
        let s = text.trimmingWhitespace
        guard let first = s.first, first.isNumber || first == "-" || first == "+" || first == ".",
            s.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) })
        else { return nil }
        if !s.contains(where: { ".eE".contains($0) }) {
            if let i = Int64(s) { self = .int(i); return }
            if let u = UInt64(s) { self = .uint(u); return }
        }
        guard let d = Double(s), d.isFinite else { return nil }
        self = .double(d)
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
        guard let first = scalars.first, let last = scalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        else { return self }
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
