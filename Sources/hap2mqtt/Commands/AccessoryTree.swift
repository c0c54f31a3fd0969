import HAPController
import HomeModel
import JSON

/// The text `hap2mqtt accessories` prints for one accessory server: its accessories, their services and
/// characteristics, one characteristic a line in aligned columns (iid, name, value with unit, format,
/// permissions), names from the HAP catalog:
///
///     Kitchen  AA:BB:CC:DD:EE:FF at 192.168.1.20:51826
///       accessory 2: Light (AA:BB:CC:DD:EE:FF/2)
///         Lightbulb (iid 8)
///            9  On          true     bool  pr pw ev
///           10  Brightness  42 %     int   pr pw ev
enum AccessoryTree {
    /// Values longer than this are cut, so that one long value does not push every column out.
    static let maximumValueWidth = 40

    /// The tree for `accessories` of the server of `pairing`; `failures` are the characteristics whose
    /// read the accessory refused, with its status (shown after the line).
    static func render(pairing: Pairing, accessories: [Accessory], failures: [HAPCharacteristicID: HAPStatus] = [:])
        -> String
    {
        var rows: [[String]] = []
        var lines: [(text: String, row: Int?)] = []
        lines.append(("\(pairing.displayName)  \(pairing.accessoryPairingID) at \(pairing.host):\(pairing.port)", nil))
        for accessory in accessories {
            let title = accessory.information(.Characteristic.name).map { ": \($0)" } ?? ""
            lines.append(("  accessory \(accessory.aid)\(title) (\(accessory.id))", nil))
            for service in accessory.services {
                let serviceName = HAPCatalog.service(service.type)?.name ?? service.type.description
                lines.append(("    \(serviceName) (iid \(service.iid))", nil))
                for characteristic in service.characteristics {
                    let failure = failures[HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)]
                    rows.append([
                        String(characteristic.iid), name(of: characteristic),
                        failure == nil ? value(of: characteristic) : "?",
                        characteristic.format.rawValue, characteristic.permissions.hapNames.joined(separator: " "),
                        failure.map { "read failed: \($0)" } ?? "",
                    ])
                    lines.append(("", rows.count - 1))
                }
            }
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for line in lines {
            guard let index = line.row else {
                text += line.text + "\n"
                continue
            }
            let row = rows[index]
            var cells = [String(repeating: " ", count: widths[0] - row[0].count) + row[0]]
            cells += (1..<4).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count) }
            cells.append(row[4])
            if !row[5].isEmpty { cells.append(row[5]) }
            text += "      " + cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        return text
    }

    /// The catalog name (`Brightness`), else the accessory's description, else the type.
    static func name(of characteristic: Characteristic) -> String {
        HAPCatalog.characteristic(characteristic.type)?.name ?? characteristic.descriptionText
            ?? characteristic.type.description
    }

    /// The value as a person reads it: `true`, `42 %`, `21.5 °C`, `1 (Secured)`, `"text"`; `-` when there
    /// is none (write-only characteristics, stateless events).
    static func value(of characteristic: Characteristic) -> String {
        guard let value = characteristic.value else { return "-" }
        var text: String
        switch value {
        case .string(let s): text = s.jsonQuoted
        case .json(let j): text = j
        default: text = value.description
        }
        if let number = value.int64Value, case .int = value,
            let named = HAPCatalog.characteristic(characteristic.type)?.validValues.first(where: {
                Int64($0.value) == number
            })
        {
            text += " (\(named.name))"
        } else if let unit = characteristic.unit, value.doubleValue != nil, characteristic.format != .bool {
            text += " " + (units[unit] ?? unit)
        }
        guard text.count > maximumValueWidth else { return text }
        return String(text.prefix(maximumValueWidth - 1)) + "…"
    }

    private static let units = [
        "percentage": "%", "celsius": "°C", "fahrenheit": "°F", "arcdegrees": "°", "lux": "lx", "seconds": "s",
    ]
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
