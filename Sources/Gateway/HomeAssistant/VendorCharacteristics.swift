import HomeModel

/// What the gateway knows about characteristic types that HAP does not define: vendors' own (Eve's energy,
/// Ecobee's comfort settings, Netatmo's noise) and Apple types that HAP-python's catalog lacks (Thread).
/// Each has a name, the Home Assistant platform it becomes, and Home Assistant's unit, device class, state
/// class and entity category, so that none is named by its UUID (docs/devices.md).
///
/// The entries are data (`VendorCharacteristics+Data.swift`), parsed once on first use: one line per type,
/// easy to extend. A type in neither this table nor the HAP catalog still gets an entity, named in words
/// (its description, else `Vendor characteristic <iid>`), `diagnostic` and disabled by default.
struct VendorCharacteristic: Sendable {
    /// The characteristic type (a full UUID, or a short Apple one).
    let type: HAPType
    /// Who defines it (`Eve`, `Ecobee`), for docs/devices.md and the tests.
    let vendor: String
    /// The entity's name in sentence case (`Energy`, `Home heat target`).
    let name: String
    /// Home Assistant's platform: `sensor`, `binary_sensor`, `number`, `select`, `switch` or `button`.
    let platform: String
    /// Home Assistant's unit (`W`, `kWh`, `hPa`, `dB`, `°C`), when the value has one.
    let unit: String?
    /// Home Assistant's device class (`power`, `energy`, `pressure`), when one fits.
    let deviceClass: String?
    /// Home Assistant's state class of a sensor (`measurement`, `total_increasing`).
    let stateClass: String?
    /// `config` or `diagnostic`; nil for a primary entity.
    let category: String?
    /// The writable range when the accessory gives none: smallest value, largest, step.
    let minValue: Double?
    let maxValue: Double?
    let minStep: Double?
    /// The named values of an enumeration (`select` options or a sensor's words), by integer.
    let options: [(Int, String)]
    /// A write-only characteristic of the same service that takes this one's writes (Ecobee's current
    /// mode is read here and set through its hold-schedule characteristic).
    let writtenThrough: HAPType?
}

enum VendorCharacteristics {
    /// The entry of `type`; nil for a type the table does not hold.
    static func entry(_ type: HAPType) -> VendorCharacteristic? { byType[type] }

    /// Every entry, in the table's order.
    static var all: [VendorCharacteristic] { entries }

    private static let entries: [VendorCharacteristic] = table.split(separator: "\n").compactMap { parse(String($0)) }
    private static let byType: [HAPType: VendorCharacteristic] = Dictionary(
        entries.map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })

    /// One line of the table: tab-separated columns, `-` for an empty one (see the table's header).
    private static func parse(_ line: String) -> VendorCharacteristic? {
        let trimmed = trim(Substring(line))
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let columns = trimmed.split(separator: "\t", omittingEmptySubsequences: false).map {
            let text = trim($0)
            return text == "-" ? "" : text
        }
        guard columns.count >= 8, let type = HAPType(columns[0]) else { return nil }
        func column(_ index: Int) -> String? { index < columns.count && !columns[index].isEmpty ? columns[index] : nil }
        var range: [String: Double] = [:]
        var options: [(Int, String)] = []
        var through: HAPType?
        for field in (column(8) ?? "").split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "options":
                options = parts[1].split(separator: ",").compactMap { pair in
                    let kv = pair.split(separator: ":", maxSplits: 1)
                    guard kv.count == 2, let value = Int(kv[0]) else { return nil }
                    return (value, String(kv[1]))
                }
            case "through": through = HAPType(parts[1])
            default: range[parts[0]] = Double(parts[1])
            }
        }
        return VendorCharacteristic(
            type: type, vendor: columns[1], name: columns[2], platform: columns[3], unit: column(4),
            deviceClass: column(5), stateClass: column(6), category: column(7), minValue: range["min"],
            maxValue: range["max"], minStep: range["step"], options: options, writtenThrough: through)
    }

    /// `text` without spaces at either end.
    private static func trim(_ text: Substring) -> String {
        String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
