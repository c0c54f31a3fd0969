extension JSONValue {
    /// The nesting limit `init(parsing:)` applies unless told otherwise. HAP bodies nest about six
    /// levels deep and MQTT payloads two; the limit keeps hostile input such as `[[[[…` from
    /// exhausting the stack (the reader recurses once per level).
    public static let defaultMaximumDepth = 128

    /// Parses one JSON value (RFC 8259) from UTF-8 bytes. What it accepts beyond the RFC's grammar, and
    /// how it reads what the RFC leaves open:
    ///
    /// - A trailing comma before `]` or `}` is accepted, because Netatmo and other accessories send it
    ///   (aiohomekit PR #46, docs/hap-notes.md §7.13); Foundation's parser, which read MQTT payloads
    ///   before, accepted it too.
    /// - A UTF-8 byte order mark before the value is skipped (RFC 8259 §8.1 allows ignoring it).
    /// - Any value may stand at the top level, also a number or a string (RFC 8259 §2).
    /// - Integers become `.int` or `.uint` without rounding; other numbers become `.double`. A number
    ///   beyond Double's range (`1e400`) is refused; one below its precision (`1e-400`) reads as 0.
    ///   `NaN` and `Infinity` are not JSON and are refused.
    /// - A key given twice: both members are kept, and lookups see the last (`JSONObject`).
    /// - `\u0000` reads as U+0000 in the string; a raw byte below 0x20 inside a string is refused.
    /// - A lone UTF-16 surrogate in a `\u` escape (valid JSON grammar, but not Unicode text) becomes
    ///   U+FFFD rather than failing a whole accessory body.
    ///
    /// - Throws: `JSONError` with the byte offset for anything else: empty input, a truncated value,
    ///   bad literals, numbers or escapes, raw control characters or invalid UTF-8 in strings, bytes
    ///   outside strings that are not JSON, nesting deeper than `maximumDepth`, or data after the value.
    public init(parsing bytes: some Collection<UInt8>, maximumDepth: Int = JSONValue.defaultMaximumDepth)
        throws(JSONError)
    {
        let result: Result<JSONValue, JSONError>? = bytes.withContiguousStorageIfAvailable {
            JSONReader.parse($0, maximumDepth: maximumDepth)
        }
        switch result ?? Array(bytes).withUnsafeBufferPointer({ JSONReader.parse($0, maximumDepth: maximumDepth) }) {
        case .success(let value): self = value
        case .failure(let error): throw error
        }
    }

    /// Parses JSON text; see `init(parsing:maximumDepth:)` for what is accepted.
    /// - Throws: `JSONError` as `init(parsing:maximumDepth:)`.
    public init(parsing text: String, maximumDepth: Int = JSONValue.defaultMaximumDepth) throws(JSONError) {
        var text = text
        let result = text.withUTF8 { JSONReader.parse($0, maximumDepth: maximumDepth) }
        switch result {
        case .success(let value): self = value
        case .failure(let error): throw error
        }
    }
}

/// The recursive-descent reader behind `JSONValue(parsing:)`. It reads from a buffer that outlives it and
/// never indexes past its end: every access is guarded by `index < bytes.count`. It recurses once per
/// level of nesting, at most `maximumDepth` deep.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) -> Result<JSONValue, JSONError> {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.index = 3 }
        do throws(JSONError) {
            reader.skipWhiteSpace()
            guard reader.index < bytes.count else { throw JSONError(.empty, at: 0) }
            let value = try reader.readValue(depth: 0)
            reader.skipWhiteSpace()
            guard reader.index == bytes.count else { throw JSONError(.trailingData, at: reader.index) }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    // ASCII bytes the grammar names.
    private static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C, comma: UInt8 = 0x2C, colon: UInt8 = 0x3A
    private static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    private static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    private static let minus: UInt8 = 0x2D, plus: UInt8 = 0x2B, dot: UInt8 = 0x2E, zero: UInt8 = 0x30

    private var atEnd: Bool { index >= bytes.count }

    private mutating func skipWhiteSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func unexpected(_ expected: String) -> JSONError {
        atEnd
            ? JSONError(.unexpectedEnd, at: index)
            : JSONError(.unexpectedByte(bytes[index], expected: expected), at: index)
    }

    private mutating func readValue(depth: Int) throws(JSONError) -> JSONValue {
        guard !atEnd else { throw JSONError(.unexpectedEnd, at: index) }
        switch bytes[index] {
        case Self.openBrace: return try readObject(depth: depth + 1)
        case Self.openBracket: return try readArray(depth: depth + 1)
        case Self.quote: return .string(try readString())
        case Self.minus, 0x30...0x39: return try readNumber()
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        default: throw unexpected("a value")
        }
    }

    private mutating func readLiteral(_ word: StaticString) throws(JSONError) {
        let start = index
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard !atEnd else { throw JSONError(.unexpectedEnd, at: index) }
            guard bytes[index] == expected else {
                throw JSONError(.unexpectedByte(bytes[index], expected: "'\(word)'"), at: start)
            }
            index += 1
        }
    }

    private mutating func readArray(depth: Int) throws(JSONError) -> JSONValue {
        var elements: [JSONValue] = []
        try readList(depth: depth, closing: Self.closeBracket, expected: "',' or ']'") {
            (r: inout JSONReader) throws(JSONError) in
            elements.append(try r.readValue(depth: depth))
        }
        return .array(elements)
    }

    private mutating func readObject(depth: Int) throws(JSONError) -> JSONValue {
        var object = JSONObject()
        try readList(depth: depth, closing: Self.closeBrace, expected: "',' or '}'") {
            (r: inout JSONReader) throws(JSONError) in
            guard !r.atEnd, r.bytes[r.index] == Self.quote else { throw r.unexpected("a member name in quotes") }
            let key = try r.readString()
            r.skipWhiteSpace()
            guard !r.atEnd, r.bytes[r.index] == Self.colon else { throw r.unexpected("':'") }
            r.index += 1
            r.skipWhiteSpace()
            object.append(key, try r.readValue(depth: depth))
        }
        return .object(object)
    }

    /// Reads the comma-separated items of an array or object from its opening bracket to `closing`,
    /// calling `item` at the start of each; a comma right before `closing` is the tolerated trailing one.
    private mutating func readList(
        depth: Int, closing: UInt8, expected: String,
        _ item: (inout JSONReader) throws(JSONError) -> Void
    ) throws(JSONError) {
        guard depth <= maximumDepth else { throw JSONError(.tooDeep(limit: maximumDepth), at: index) }
        index += 1
        skipWhiteSpace()
        if !atEnd, bytes[index] == closing {
            index += 1
            return
        }
        while true {
            try item(&self)
            skipWhiteSpace()
            guard !atEnd else { throw JSONError(.unexpectedEnd, at: index) }
            if bytes[index] == closing {
                index += 1
                return
            }
            guard bytes[index] == Self.comma else { throw unexpected(expected) }
            index += 1
            skipWhiteSpace()
            if !atEnd, bytes[index] == closing {
                index += 1
                return
            }
        }
    }

    private mutating func readString() throws(JSONError) -> String {
        let start = index
        index += 1
        var segmentStart = index
        var decoded: [UInt8]? = nil  // only built once an escape shows up
        while true {
            guard !atEnd else { throw JSONError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            if byte == Self.quote {
                let tail = UnsafeBufferPointer(rebasing: bytes[segmentStart..<index])
                index += 1
                let text: String?
                if var d = decoded {
                    d.append(contentsOf: tail)
                    text = String(validating: d, as: UTF8.self)
                } else if tail.allSatisfy({ $0 < 0x80 }) {
                    // ASCII is valid UTF-8: decoded without `String(validating:)`, which is generic and not
                    // specialized here, and looks up type metadata for every string (12 % of parsing a
                    // `/accessories`).
                    text = String(decoding: tail, as: UTF8.self)
                } else {
                    text = String(validating: tail, as: UTF8.self)
                }
                guard let text else { throw JSONError(.invalidUTF8, at: start) }
                return text
            }
            if byte < 0x20 { throw JSONError(.controlCharacterInString, at: index) }
            if byte == Self.backslash {
                var d = decoded ?? []
                d.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                try readEscape(into: &d)
                decoded = d
                segmentStart = index
                continue
            }
            index += 1
        }
    }

    /// Reads one escape starting at the backslash and appends its UTF-8 bytes.
    private mutating func readEscape(into out: inout [UInt8]) throws(JSONError) {
        let start = index
        index += 1
        guard !atEnd else { throw JSONError(.unexpectedEnd, at: index) }
        let letter = bytes[index]
        index += 1
        switch letter {
        case Self.quote, Self.backslash, UInt8(ascii: "/"): out.append(letter)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHex4(escapeStart: start)
            var scalar = Unicode.Scalar(unit)
            if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == Self.backslash,
                bytes[index + 1] == UInt8(ascii: "u")
            {
                let save = index
                index += 2
                let low = try readHex4(escapeStart: save)
                if (0xDC00...0xDFFF).contains(low) {
                    scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                } else {
                    index = save  // not a pair: the high surrogate stands alone, the next escape is read on its own
                }
            }
            out.append(contentsOf: (scalar ?? "\u{FFFD}").utf8)
        default: throw JSONError(.invalidEscape, at: start)
        }
    }

    private mutating func readHex4(escapeStart: Int) throws(JSONError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw JSONError(.invalidEscape, at: escapeStart) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x41...0x46: digit = b - 0x41 + 10
            case 0x61...0x66: digit = b - 0x61 + 10
            default: throw JSONError(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func readDigits() -> Int {
        let start = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func readNumber() throws(JSONError) -> JSONValue {
        let start = index
        let negative = bytes[index] == Self.minus
        if negative { index += 1 }
        let integerStart = index
        let integerDigits = readDigits()
        guard integerDigits > 0 else { throw JSONError(.invalidNumber, at: start) }
        if integerDigits > 1, bytes[integerStart] == Self.zero { throw JSONError(.invalidNumber, at: start) }
        var isInteger = true
        if !atEnd, bytes[index] == Self.dot {
            index += 1
            guard readDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
            isInteger = false
        }
        if !atEnd, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if !atEnd, bytes[index] == Self.plus || bytes[index] == Self.minus { index += 1 }
            guard readDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
            isInteger = false
        }
        if isInteger, let exact = exactInteger(digits: integerStart..<index, negative: negative) { return exact }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw JSONError(.numberOutOfRange, at: start) }
        return .double(d)
    }

    /// The integer in `digits` as `.int` or `.uint`; nil when it does not fit 64 bits.
    private func exactInteger(digits: Range<Int>, negative: Bool) -> JSONValue? {
        var magnitude: UInt64 = 0
        for i in digits {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] - Self.zero))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        if !negative { return JSONValue(magnitude) }
        if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
        if magnitude == UInt64(Int64.max) + 1 { return .int(Int64.min) }
        return nil
    }
}
