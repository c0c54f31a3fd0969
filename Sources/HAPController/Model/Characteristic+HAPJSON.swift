import HomeModel
import JSON

extension Characteristic {
    /// Reads one characteristic object of `GET /accessories` (HAP spec §6.3.3; docs/hap-notes.md §4.1).
    ///
    /// `iid` and `type` are required: without them the characteristic is skipped (nil, with a problem).
    /// Everything else is read best-effort and odd parts are reported as `adjusted` problems: an unknown
    /// or missing format is inferred from the value, a value the format cannot carry is left unknown,
    /// metadata of the wrong JSON type is ignored.
    /// `location` is made only for a problem: a string per characteristic, and another with its iid, made
    /// for every characteristic of every `/accessories` read, would be paid on every read for nothing.
    static func fromHAP(
        _ json: JSONValue, location: @autoclosure () -> String, problems: inout [HAPModelProblem]
    ) -> Characteristic? {
        guard case .object(let object) = json else {
            problems.append(
                HAPModelProblem(
                    location: location(), action: .skipped,
                    reason: "a characteristic must be an object, not \(json.kindName)"))
            return nil
        }
        let fields = Fields(object)
        guard let iid = fields.iid?.intValue, iid >= 0 else {
            problems.append(HAPModelProblem(location: location(), action: .skipped, reason: "no valid \"iid\""))
            return nil
        }
        func here() -> String { "\(location()) iid \(iid)" }
        guard let typeText = fields.type?.stringValue, let type = HAPType(typeText) else {
            problems.append(
                HAPModelProblem(
                    location: here(), action: .skipped,
                    reason: "\"type\" is not a HAP type UUID: \(fields.type?.description ?? "missing")"))
            return nil
        }
        func note(_ reason: String) {
            problems.append(HAPModelProblem(location: here(), action: .adjusted, reason: reason))
        }

        let rawValue = fields.value
        let format: CharacteristicFormat
        if let name = fields.format?.stringValue, let known = CharacteristicFormat(hapName: name) {
            format = known
        } else {
            format = CharacteristicFormat.inferred(from: rawValue)
            note(
                "format \(fields.format?.description ?? "missing") is not a HAP format; read as \(format.rawValue) from the value"
            )
        }

        var permissions: Permissions = []
        if let names = fields.perms?.arrayValue {
            permissions = Permissions(names: names.compactMap(\.stringValue))
        } else {
            note("no \"perms\" array; no permissions assumed")
        }

        var value: CharacteristicValue?
        if let rawValue {
            do throws(HAPModelError) {
                value = try CharacteristicValue.decoded(fromHAP: rawValue, format: format)
            } catch {
                note("value left unknown: \(error)")
            }
        }

        func number(_ j: JSONValue?, _ key: String) -> Double? {
            guard let j else { return nil }
            guard let d = j.doubleValue, d.isFinite else {
                if !j.isNull { note("ignored \"\(key)\": \(j) is not a number") }
                return nil
            }
            return d
        }
        /// A length limit: a whole number of at least 1 (a limit of 0 or less would refuse every value).
        func length(_ j: JSONValue?, _ key: String) -> Int? {
            guard let j else { return nil }
            guard let i = j.intValue, i >= 1 else {
                if !j.isNull { note("ignored \"\(key)\": \(j) is not a length of at least 1") }
                return nil
            }
            return i
        }

        var validValues: [Int]?
        if let list = fields.validValues {
            validValues = list.arrayValue?.compactMap(\.intValue)
            if validValues == nil, !list.isNull { note("ignored \"valid-values\": not an array") }
            if validValues?.isEmpty == true {
                // No value would be valid: every write would be refused.
                note("ignored \"valid-values\": it lists no whole number")
                validValues = nil
            }
        }
        var validRange: ClosedRange<Int>?
        if let range = fields.validValuesRange {
            if let a = range.arrayValue, a.count == 2, let lo = a[0].intValue, let hi = a[1].intValue, lo <= hi {
                validRange = lo...hi
            } else if !range.isNull {
                note("ignored \"valid-values-range\": \(range) is not [min, max]")
            }
        }

        var minValue = number(fields.minValue, "minValue")
        var maxValue = number(fields.maxValue, "maxValue")
        if let low = minValue, let high = maxValue, low > high {
            // No value fits such a range: every write would be refused, each for another bound.
            note(
                "ignored \"minValue\" \(CharacteristicValue.format(low)) and \"maxValue\" \(CharacteristicValue.format(high)): the minimum is above the maximum"
            )
            minValue = nil
            maxValue = nil
        }
        return Characteristic(
            iid: iid, type: type, format: format, permissions: permissions,
            unit: fields.unit?.stringValue, minValue: minValue,
            maxValue: maxValue, minStep: number(fields.minStep, "minStep"),
            maxLength: length(fields.maxLength, "maxLen"), maxDataLength: length(fields.maxDataLength, "maxDataLen"),
            validValues: validValues, validValuesRange: validRange, value: value,
            descriptionText: fields.description?.stringValue)
    }

    /// The members of a characteristic object that `fromHAP` reads, found in one pass over the members (of
    /// a key given twice, the last, as `JSONObject`'s subscript gives it): a lookup per field would search the
    /// members again for each of a dozen fields.
    private struct Fields {
        var iid, type, value, format, perms, validValues, validValuesRange: JSONValue?
        var minValue, maxValue, minStep, maxLength, maxDataLength, unit, description: JSONValue?

        init(_ object: JSONObject) {
            for member in object.members {
                switch member.key {
                case "iid": iid = member.value
                case "type": type = member.value
                case "value": value = member.value
                case "format": format = member.value
                case "perms": perms = member.value
                case "valid-values": validValues = member.value
                case "valid-values-range": validValuesRange = member.value
                case "minValue": minValue = member.value
                case "maxValue": maxValue = member.value
                case "minStep": minStep = member.value
                case "maxLen": maxLength = member.value
                case "maxDataLen": maxDataLength = member.value
                case "unit": unit = member.value
                case "description": description = member.value
                default: break
                }
            }
        }
    }
}

extension CharacteristicFormat {
    /// The format for a HAP `format` name, in any case; `int32` and `double`, seen from some servers,
    /// read as `int` and `float`.
    init?(hapName: String) {
        // Most servers send the lower-case name: no lower-cased copy for them.
        if let exact = CharacteristicFormat(rawValue: hapName) {
            self = exact
            return
        }
        let name = hapName.lowercased()
        switch name {
        case "int32": self = .int
        case "double": self = .float
        case "dictionary": self = .dictionary
        default: self.init(rawValue: name)
        }
    }

    /// A best guess from a value when the format is unknown: its JSON kind (`string` when there is no
    /// value).
    static func inferred(from value: JSONValue?) -> CharacteristicFormat {
        switch value {
        case .bool?: return .bool
        case .int(let i)?: return Int32(exactly: i) != nil ? .int : i > 0 ? .uint64 : .float
        case .uint?: return .uint64
        case .double?: return .float
        case .array?: return .array
        case .object?: return .dictionary
        case .string?, .null?, nil: return .string
        }
    }
}
