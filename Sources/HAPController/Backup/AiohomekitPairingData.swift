public import JSON

/// Pairings in aiohomekit's pairing-data form, the file `Controller.load_data` reads and Home Assistant's
/// HomeKit Controller keeps in its config entries (docs/DESIGN.md "Backup"): one object per pairing, by
/// alias, with the members aiohomekit 4.0.1's pair-setup saves (`AccessoryPairingID`, `AccessoryLTPK` and
/// the controller's `iOSPairingId`, `iOSDeviceLTSK`, `iOSDeviceLTPK`, keys as lower-case hex) and those its
/// IP discovery adds (`AccessoryIP`, `AccessoryIPs`, `AccessoryPort`, `Connection` "IP").
public enum AiohomekitPairingData {
    /// The pairing file for `pairings`, by alias: the pairing's name (its accessory pairing id when it has
    /// none). Each pairing's controller is its own (`Pairing.controller`) or else `identity`. Holds secret
    /// keys: write it with mode 0600.
    public static func file(for pairings: [Pairing], identity: ControllerIdentity) -> JSONValue {
        var object = JSONObject()
        for pairing in pairings {
            object.append(pairing.displayName, data(for: pairing, identity: pairing.controller ?? identity))
        }
        return .object(object)
    }

    /// The pairing data of one pairing.
    static func data(for pairing: Pairing, identity: ControllerIdentity) -> JSONValue {
        [
            "AccessoryPairingID": .string(pairing.accessoryPairingID),
            "AccessoryLTPK": .string(Hex.encode(pairing.accessoryLTPK)),
            "iOSPairingId": .string(identity.pairingID),
            "iOSDeviceLTSK": .string(Hex.encode(identity.seed)),
            "iOSDeviceLTPK": .string(Hex.encode(identity.publicKey)),
            "AccessoryIP": .string(pairing.host),
            "AccessoryIPs": .array([.string(pairing.host)]),
            "AccessoryPort": JSONValue(Int(pairing.port)),
            "Connection": "IP",
        ]
    }
}
