/// Checking a value against a characteristic's rules before a write (docs/DESIGN.md "Values": a number
/// off the step is rounded to the nearest step, as HomeKit's own apps do, but never down to a minimum of 0
/// from above it; nothing is clamped; a value that breaks any other rule is refused and never written).
extension Characteristic {
    /// Checks `value` for a write to this characteristic and returns the value to write, in the format's
    /// normal form: `.bool` for `bool`, `.int` for integer formats (`.uint` only above `Int64.max`),
    /// `.float` for `float`, `.string`, `.data` for `tlv8`/`data`, `.json` for `array`/`dict`. A number
    /// off the step comes back rounded to the nearest step (`roundedToStep`): 53 with a step of 5 is 55;
    /// one above a minimum of 0 never becomes 0 (1 with a step of 25 is 25, not 0).
    /// The last step of `valueToWrite(for:name:)`, which checks `pw` before; not meant to be used on its own.
    ///
    /// The rules, in order: the value's type fits the format (an integer format takes an integral number
    /// within the format's range; `float` takes any finite number); strings are at most `maxLength` UTF-8
    /// bytes (64 when absent), `tlv8`/`data` at most `maxDataLength` bytes; an enumeration's value is among
    /// its valid values (the accessory's, else the catalog's when the accessory sent no
    /// `valid-values-range`) and inside `validValuesRange`; numbers lie within `minValue`...`maxValue`; a
    /// number that is not a whole number of `minStep`s from `minValue` (or 0), beyond a relative tolerance
    /// of 1e-9 for binary noise (21.3 with step 0.1), is rounded to one.
    /// - Parameter name: the characteristic's slug, for the error message.
    /// - Throws: `ValueError` naming the characteristic, the value and the broken rule.
    func validate(_ value: CharacteristicValue, name: String) throws(ValueError) -> CharacteristicValue {
        func fail(_ rule: ValueError.Rule) -> ValueError {
            ValueError(characteristic: name, value: value.description, rule: rule)
        }
        let normal = try conformed(value, fail)
        switch normal {
        case .string(let s) where s.utf8.count > (maxLength ?? 64): throw fail(.tooLong(maxLength: maxLength ?? 64))
        case .data(let d) where maxDataLength.map({ d.count > $0 }) ?? false:
            throw fail(.tooLong(maxLength: maxDataLength ?? 0))
        case .int, .uint:
            try checkEnumeration(normal, fail)
            try checkRange(normal, fail)
            return onStep(normal)
        case .float:
            try checkRange(normal, fail)
            return onStep(normal)
        default: break
        }
        return normal
    }

    /// The value in the format's normal form, or `.wrongType` / `.outOfFormatRange`.
    private func conformed(_ value: CharacteristicValue, _ fail: (ValueError.Rule) -> ValueError) throws(ValueError)
        -> CharacteristicValue
    {
        let wrongType = fail(.wrongType(expected: format))
        switch (format, value) {
        case (.bool, .bool), (.string, .string), (.tlv8, .data), (.data, .data), (.array, .json), (.dictionary, .json):
            return value
        case (.float, .int), (.float, .uint), (.float, .float):
            guard let d = value.doubleValue, d.isFinite else { throw wrongType }
            return .float(d)
        case (_, .int), (_, .uint), (_, .float):
            guard let range = format.integerRange else { throw wrongType }
            let integer: CharacteristicValue
            switch value {
            case .float(let f):
                guard let v = ParsedNumber.double(f).value(for: format) else { throw wrongType }
                integer = v
            case .uint(let u): integer = .integer(u)
            default: integer = value
            }
            guard let d = integer.doubleValue, range.contains(d), !(format == .uint64 && d < 0) else {
                throw fail(.outOfFormatRange)
            }
            return integer
        default: throw wrongType
        }
    }

    /// Valid values and the valid-values range of an integer value.
    private func checkEnumeration(_ value: CharacteristicValue, _ fail: (ValueError.Rule) -> ValueError)
        throws(ValueError)
    {
        guard let v = value.int64Value else { return }
        let allowed = validValues ?? (validValuesRange == nil ? enumerationNames?.map(\.value) : nil)
        if let allowed, !allowed.contains(where: { Int64($0) == v }) { throw fail(.notAValidValue(allowed)) }
        if let r = validValuesRange {
            if v < Int64(r.lowerBound) { throw fail(.belowMinimum(Double(r.lowerBound))) }
            if v > Int64(r.upperBound) { throw fail(.aboveMaximum(Double(r.upperBound))) }
        }
    }

    /// `minValue` and `maxValue` of a number.
    private func checkRange(_ value: CharacteristicValue, _ fail: (ValueError.Rule) -> ValueError) throws(ValueError) {
        guard let v = value.doubleValue else { return }
        if let minValue, v < minValue { throw fail(.belowMinimum(minValue)) }
        if let maxValue, v > maxValue { throw fail(.aboveMaximum(maxValue)) }
    }

    /// A number within the range moved onto the step, in its format; unchanged when it is on it already.
    /// A request above a `minValue` of 0 that would round down to 0 takes the first step instead (within
    /// `maxValue`): a brightness of 1 with a step of 25 is 25, since 0 would leave a lamp on but dark
    /// (or a fan on at speed 0) where the client asked for a little. Another minimum is an ordinary value
    /// (a thermostat's 10 °C), so 10.04 with a step of 0.1 is 10.0 there.
    private func onStep(_ value: CharacteristicValue) -> CharacteristicValue {
        guard let v = value.doubleValue, let step = minStep, step > 0 else { return value }
        let steps = (v - (minValue ?? 0)) / step
        guard abs(steps - steps.rounded()) > 1e-9 * max(1, abs(steps)) else { return value }
        var rounded = roundedToStep(v)
        if (minValue ?? 0) == 0, v > 0, rounded <= 0 { rounded = roundedToStep(step) }
        if format == .float { return .float(rounded) }
        return ParsedNumber.double(rounded.rounded()).value(for: format) ?? value
    }

    /// `value` moved to the nearest whole number of `minStep`s from `minValue` (or 0), halves away from
    /// zero, and kept within `minValue`...`maxValue` (a maximum that is no whole number of steps from the
    /// minimum takes the step below it); unchanged without a step. The result has no more decimals than
    /// the step (21.3, not 21.300000000000001, for 21.34 with a step of 0.1).
    public func roundedToStep(_ value: Double) -> Double {
        guard let step = minStep, step > 0, value.isFinite else { return value }
        let origin = minValue ?? 0
        var steps = ((value - origin) / step).rounded()
        if let maxValue, origin + steps * step > maxValue + 1e-9 * Swift.max(1, abs(maxValue)) { steps -= 1 }
        if let minValue, origin + steps * step < minValue { steps += 1 }
        let result = origin + steps * step
        // As many decimals as the step and the origin show (at most 10), so binary noise is dropped.
        let decimals = [step, origin].map { Self.decimals($0) }.max() ?? 0
        let scale = Self.powersOfTen[decimals]
        return (result * scale).rounded() / scale
    }

    /// How many decimals `number` shows in its shortest form, at most 10.
    private static func decimals(_ number: Double) -> Int {
        for places in 0...10
        where abs((number * powersOfTen[places]).rounded() - number * powersOfTen[places]) < 1e-9
            * Swift.max(1, abs(number * powersOfTen[places]))
        {
            return places
        }
        return 10
    }

    private static let powersOfTen: [Double] = (0...10).map { places in (0..<places).reduce(1.0) { p, _ in p * 10 } }

    /// A value from an accessory in the format's normal form, without checking any rule: `1` becomes
    /// `true` for `bool`, `21` becomes `21.0` for `float`, `21.0` becomes `21` for integer formats, and
    /// base64 text becomes bytes for `tlv8`/`data`. A value that does not convert is returned as it is.
    ///
    /// Accessories send booleans as 0/1 and floats as integers (docs/hap-notes.md §4.1); the store keeps
    /// the normal form so that equal values compare equal and MQTT payloads look alike.
    public func normalized(_ value: CharacteristicValue) -> CharacteristicValue {
        switch (format, value) {
        case (.bool, _): return value.boolValue.map(CharacteristicValue.bool) ?? value
        case (.float, .int), (.float, .uint), (.float, .float):
            return value.doubleValue.map(CharacteristicValue.float) ?? value
        case (_, .float(let f)) where format.isInteger: return ParsedNumber.double(f).value(for: format) ?? value
        case (_, .uint(let u)) where format.isInteger: return .integer(u)
        case (.tlv8, .string(let s)), (.data, .string(let s)):
            return Base64.decode(s).map(CharacteristicValue.data) ?? value
        default: return value
        }
    }
}
