import HAPController
import HomeModel

/// What `hap2mqtt discover` prints for the accessories found: an aligned table, or one JSON object a
/// line (`--json`), each with whether it is paired with this gateway (a pairing in the state directory
/// with its device id) and under which name:
///
///     NAME          ID                 CATEGORY   MODEL   ADDRESS       PORT   C#  S#  PAIRED
///     Kitchen       AA:BB:CC:DD:EE:FF  bridge     Bridge  192.168.1.20  51826  3   1   with this gateway as "Kitchen"
///     Desk Lamp     11:22:33:44:55:66  lightbulb  LB1     192.168.1.21  80     1   1   no: hap2mqtt pair --id 11:22:33:44:55:66
struct DiscoveredListing {
    /// One accessory with its pairing here, if any.
    struct Entry {
        var advertisement: HAPAdvertisement
        var pairing: Pairing?
    }

    let entries: [Entry]

    init(advertisements: [HAPAdvertisement], pairings: [Pairing]) {
        let byID = Dictionary(pairings.map { ($0.accessoryPairingID.uppercased(), $0) }) { first, _ in first }
        entries = advertisements.map { Entry(advertisement: $0, pairing: byID[$0.id]) }
    }

    /// The table, a header and one line per accessory.
    var table: String {
        var rows = [["NAME", "ID", "CATEGORY", "MODEL", "ADDRESS", "PORT", "C#", "S#", "PAIRED"]]
        for entry in entries {
            let a = entry.advertisement
            rows.append([
                a.name, a.id, a.category.name, a.model ?? "-",
                a.addresses.isEmpty ? "-" : a.addresses.joined(separator: ","),
                String(a.port), a.configurationNumber.map(String.init) ?? "-", a.stateNumber.map(String.init) ?? "-",
                Self.paired(entry),
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line +=
                    column == row.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }
            return line + "\n"
        }.joined()
    }

    /// Whether an accessory is paired, in words.
    private static func paired(_ entry: Entry) -> String {
        switch (entry.advertisement.isPaired, entry.pairing) {
        case (true, let pairing?): return "with this gateway as \(pairing.displayName.jsonQuoted)"
        case (true, nil): return "with another controller"
        case (false, nil): return "no: hap2mqtt pair --id \(entry.advertisement.id)"
        case (false, let pairing?):
            return "no, it was reset: this gateway's pairing \(pairing.displayName.jsonQuoted) is void; pair it again"
        }
    }

    /// One JSON object a line: `id`, `name`, `model` (null when not announced), `category` (the word),
    /// `category_id`, `host`, `addresses`, `port`, `configuration_number`, `state_number`,
    /// `status_flags`, `feature_flags`, `protocol_version`, `paired` (with some controller, from `sf`),
    /// `paired_with_gateway` and `pairing` (this gateway's pairing name, or null).
    var jsonLines: String {
        entries.map { entry in
            let a = entry.advertisement
            let fields: [(String, String)] = [
                ("id", a.id.jsonQuoted), ("name", a.name.jsonQuoted), ("model", a.model?.jsonQuoted ?? "null"),
                ("category", a.category.name.jsonQuoted), ("category_id", String(a.category.rawValue)),
                ("host", a.hostName.jsonQuoted),
                ("addresses", "[" + a.addresses.map(\.jsonQuoted).joined(separator: ",") + "]"),
                ("port", String(a.port)), ("configuration_number", a.configurationNumber.map(String.init) ?? "null"),
                ("state_number", a.stateNumber.map(String.init) ?? "null"), ("status_flags", String(a.statusFlags)),
                ("feature_flags", String(a.featureFlags)),
                ("protocol_version", a.protocolVersion?.jsonQuoted ?? "null"),
                ("paired", String(a.isPaired)), ("paired_with_gateway", String(entry.pairing != nil)),
                ("pairing", entry.pairing?.displayName.jsonQuoted ?? "null"),
            ]
            return "{" + fields.map { "\($0.0.jsonQuoted):\($0.1)" }.joined(separator: ",") + "}\n"
        }.joined()
    }
}
