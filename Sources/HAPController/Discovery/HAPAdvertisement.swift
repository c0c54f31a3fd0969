public import HomeModel

/// A HomeKit accessory server as it announces itself over DNS-SD (`_hap._tcp`, HAP spec §6.4;
/// docs/hap-notes.md §5): its device id, what its TXT record says, and where it can be reached.
public struct HAPAdvertisement: Sendable, Hashable {
    /// The DNS-SD instance name, e.g. `Kitchen Bridge` (control characters removed).
    public var name: String
    /// The device id (`id`), upper-case `AA:BB:CC:DD:EE:FF`: the accessory pairing id pair-setup and
    /// pair-verify prove.
    public var id: String
    /// The model (`md`), when it says.
    public var model: String?
    /// The category (`ci`); `other` when missing.
    public var category: AccessoryCategory
    /// The configuration number (`c#`): it changes when accessories, services or characteristics do.
    public var configurationNumber: Int?
    /// The state number (`s#`).
    public var stateNumber: Int?
    /// The status flags (`sf`): bit 0 set means not paired; 0 when missing.
    public var statusFlags: Int
    /// The pairing feature flags (`ff`): bit 0 asks for pair-setup with the Apple authentication
    /// coprocessor method; 0 when missing.
    public var featureFlags: Int
    /// The protocol version (`pv`), when it says.
    public var protocolVersion: String?
    /// The host name of its SRV record.
    public var hostName: String
    /// Its HAP port.
    public var port: UInt16
    /// The addresses to try, best first (`AddressPreference`): IPv4, then IPv6; link-local ones left out.
    public var addresses: [String]

    /// Whether it says it is paired with a controller (`sf` bit 0 clear).
    public var isPaired: Bool { statusFlags & 1 == 0 }

    /// Where to connect, best first: each address at its port.
    public var endpoints: [HAPEndpoint] { addresses.map { HAPEndpoint(host: $0, port: port) } }

    /// A service that is no HAP accessory server hap2mqtt can use, and why.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The TXT record has no `id`.
        case missingID
        /// `id` is not six hex bytes separated by colons.
        case invalidID
        /// The SRV record's port is 0.
        case invalidPort

        public var description: String {
            switch self {
            case .missingID: return "its TXT record has no id"
            case .invalidID: return "its TXT record's id is not a device id XX:XX:XX:XX:XX:XX"
            case .invalidPort: return "it announces port 0"
            }
        }
    }

    /// Reads a resolved `_hap._tcp` instance.
    /// - Throws: `Problem` when it cannot be an accessory server hap2mqtt can pair with or reach.
    public init(_ instance: ServiceInstance) throws(Problem) {
        let txt = TXTRecord(instance.txt)
        guard txt.contains("id") else { throw .missingID }
        guard let id = txt.text("id").flatMap(Self.deviceID) else { throw .invalidID }
        guard instance.port != 0 else { throw .invalidPort }
        self.id = id
        self.name = Self.printable(instance.name, limit: 63)
        self.model = txt.text("md").map { Self.printable($0, limit: 64) }.flatMap { $0.isEmpty ? nil : $0 }
        self.category = AccessoryCategory(rawValue: txt.integer("ci") ?? AccessoryCategory.other.rawValue)
        self.configurationNumber = txt.integer("c#")
        self.stateNumber = txt.integer("s#")
        self.statusFlags = txt.integer("sf") ?? 0
        self.featureFlags = txt.integer("ff") ?? 0
        self.protocolVersion = txt.text("pv").map { Self.printable($0, limit: 16) }
        self.hostName = Self.printable(instance.hostName, limit: 255)
        self.port = instance.port
        self.addresses = AddressPreference.ordered(instance.addresses)
    }

    /// `text` upper-cased when it is six hex bytes separated by colons (HAP spec §5.4: the Device ID);
    /// nil for anything else.
    public static func deviceID(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.utf8.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
            return nil
        }
        return text.uppercased()
    }

    /// `text` without control characters, at most `limit` characters.
    private static func printable(_ text: String, limit: Int) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }).prefix(
                limit))
    }
}

/// A host and port to connect to.
public struct HAPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A host name or IP address.
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, IPv6 addresses in brackets.
    public var description: String { TCPError.endpoint(host, port) }
}
