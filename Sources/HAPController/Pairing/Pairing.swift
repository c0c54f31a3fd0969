import HomeModel

/// A stored pairing with one accessory server (HAP spec §5.6.6.2): what pair-verify needs to reconnect.
/// `Codable` (the accessory's LTPK as base64) for the pairing store; holds no secret (the controller's key
/// is in `ControllerIdentity`, referenced by `controllerPairingID`).
public struct Pairing: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The accessory's pairing id (its `id` TXT record), e.g. "AA:BB:CC:DD:EE:FF".
    public var accessoryPairingID: String
    /// The accessory's Ed25519 long-term public key (32 bytes).
    public var accessoryLTPK: [UInt8]
    /// The pairing id of the `ControllerIdentity` that made this pairing.
    public var controllerPairingID: String
    /// Last known host name or IP address of the accessory server.
    public var host: String
    /// Last known TCP port of the accessory server.
    public var port: UInt16
    /// A name the user gave the accessory, if any.
    public var name: String?

    /// A pairing with every field given.
    public init(
        accessoryPairingID: String, accessoryLTPK: [UInt8], controllerPairingID: String, host: String, port: UInt16,
        name: String? = nil
    ) {
        self.accessoryPairingID = accessoryPairingID
        self.accessoryLTPK = accessoryLTPK
        self.controllerPairingID = controllerPairingID
        self.host = host
        self.port = port
        self.name = name
    }

    /// The pairing that `PairSetup` produced for `controller` with the accessory at `host`:`port`.
    public init(
        controller: ControllerIdentity, accessory: PairSetupResult, host: String, port: UInt16, name: String? = nil
    ) {
        self.init(
            accessoryPairingID: accessory.accessoryPairingID, accessoryLTPK: accessory.accessoryLTPK,
            controllerPairingID: controller.pairingID, host: host, port: port, name: name)
    }

    private enum CodingKeys: String, CodingKey {
        case accessoryPairingID, accessoryLTPK, controllerPairingID, host, port, name
    }

    /// Reads the stored form; the accessory LTPK must be base64 of 32 bytes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessoryPairingID: try container.decode(String.self, forKey: .accessoryPairingID),
            accessoryLTPK: try Base64Field.decode(container, .accessoryLTPK, length: Ed25519PrivateKey.keyLength),
            controllerPairingID: try container.decode(String.self, forKey: .controllerPairingID),
            host: try container.decode(String.self, forKey: .host),
            port: try container.decode(UInt16.self, forKey: .port),
            name: try container.decodeIfPresent(String.self, forKey: .name))
    }

    /// Writes the form `init(from:)` reads, the LTPK as base64.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessoryPairingID, forKey: .accessoryPairingID)
        try container.encode(Base64.encode(accessoryLTPK), forKey: .accessoryLTPK)
        try container.encode(controllerPairingID, forKey: .controllerPairingID)
        try container.encode(host, forKey: .host)
        try container.encode(port, forKey: .port)
        try container.encodeIfPresent(name, forKey: .name)
    }

    /// `Pairing(AA:BB:CC:DD:EE:FF "Lamp" at 192.168.1.5:51826)`.
    public var description: String {
        let label = name.map { " \"\($0)\"" } ?? ""
        return "Pairing(\(accessoryPairingID)\(label) at \(host):\(port))"
    }
}
