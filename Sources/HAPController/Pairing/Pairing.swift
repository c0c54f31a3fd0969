import HomeModel
public import JSON

/// A stored pairing with one accessory server (HAP spec §5.6.6.2): what pair-verify needs to reconnect.
/// Stored by the pairing store as JSON (`json`, the accessory's LTPK as base64). A pairing this controller
/// made holds no secret: the controller's key is the state directory's `ControllerIdentity`, referenced by
/// `controllerPairingID`. A pairing taken over from another controller (`hap2mqtt import`) that could not
/// be given this controller's own pairing keeps that controller's identity in `controller` (docs/DESIGN.md
/// "Backup").
public struct Pairing: Sendable, Hashable, CustomStringConvertible {
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
    /// The identity of the controller that made the pairing, when it is not the state directory's (an
    /// imported pairing); nil for the state directory's. Its `pairingID` is `controllerPairingID`. Secret.
    public var controller: ControllerIdentity?

    /// A pairing with every field given.
    public init(
        accessoryPairingID: String, accessoryLTPK: [UInt8], controllerPairingID: String, host: String, port: UInt16,
        name: String? = nil, controller: ControllerIdentity? = nil
    ) {
        self.accessoryPairingID = accessoryPairingID
        self.accessoryLTPK = accessoryLTPK
        self.controllerPairingID = controllerPairingID
        self.host = host
        self.port = port
        self.name = name
        self.controller = controller
    }

    /// The pairing that `PairSetup` produced for `controller` with the accessory at `host`:`port`.
    public init(
        controller: ControllerIdentity, accessory: PairSetupResult, host: String, port: UInt16, name: String? = nil
    ) {
        self.init(
            accessoryPairingID: accessory.accessoryPairingID, accessoryLTPK: accessory.accessoryLTPK,
            controllerPairingID: controller.pairingID, host: host, port: port, name: name)
    }

    /// Reads the stored form that `json` writes; the accessory LTPK must be base64 of 32 bytes, and a
    /// controller key must belong to its public key.
    /// - Throws: `JSONFieldError` naming the first member that is missing, of the wrong type or impossible.
    public init(json: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(json)
        let controllerPairingID = try fields.string("controllerPairingID")
        var controller: ControllerIdentity?
        if case .string? = json["controllerLTSK"] {
            controller = try ControllerIdentity(
                json: [
                    "pairingID": .string(controllerPairingID), "seed": try fields.value("controllerLTSK"),
                    "publicKey": try fields.value("controllerLTPK"),
                ])
        }
        self.init(
            accessoryPairingID: try fields.string("accessoryPairingID"),
            accessoryLTPK: try Base64Field.bytes(fields, "accessoryLTPK", length: Ed25519PrivateKey.keyLength),
            controllerPairingID: controllerPairingID,
            host: try fields.string("host"),
            port: try fields.integer("port"),
            name: try fields.optionalString("name"),
            controller: controller)
    }

    /// The stored form: `{"accessoryLTPK":base64,"accessoryPairingID":…,"controllerPairingID":…,"host":…,
    /// "name":…,"port":…}`, `name` left out when there is none; an imported pairing's own controller adds
    /// `controllerLTSK` (the Ed25519 seed) and `controllerLTPK`, base64.
    public var json: JSONValue {
        var object: JSONObject = [
            "accessoryPairingID": .string(accessoryPairingID),
            "accessoryLTPK": .string(Base64.encode(accessoryLTPK)),
            "controllerPairingID": .string(controllerPairingID),
            "host": .string(host),
            "port": JSONValue(Int(port)),
        ]
        if let name { object.append("name", .string(name)) }
        if let controller {
            object.append("controllerLTSK", .string(Base64.encode(controller.seed)))
            object.append("controllerLTPK", .string(Base64.encode(controller.publicKey)))
        }
        return .object(object)
    }

    /// `Pairing(AA:BB:CC:DD:EE:FF "Lamp" at 192.168.1.5:51826)`.
    public var description: String {
        let label = name.map { " \"\($0)\"" } ?? ""
        return "Pairing(\(accessoryPairingID)\(label) at \(host):\(port))"
    }
}
