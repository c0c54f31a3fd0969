public import JSON

/// A pairing another controller made, read from aiohomekit's pairing data (its own pairing file, or a
/// config entry of Home Assistant's HomeKit Controller, which keeps the same data): either one this
/// controller can take over (HAP over IP), or one it skips, with the reason.
public struct ForeignPairing: Sendable, Hashable {
    /// What can be done with it.
    public enum Kind: Sendable, Hashable {
        /// An IP accessory: the pairing, with the other controller's identity as `Pairing.controller`.
        case ip(Pairing)
        /// Not taken over: `reason`, one phrase (`a Bluetooth (BLE) accessory: hap2mqtt speaks HAP over IP
        /// only`).
        case skipped(reason: String)
    }

    /// The name the other controller gave it (Home Assistant's entry title, aiohomekit's alias).
    public var name: String
    /// The accessory's pairing id, when the data has one.
    public var accessoryPairingID: String?
    /// What can be done with it.
    public var kind: Kind

    /// The pairing that aiohomekit's pairing data `data` describes (docs/DESIGN.md "Backup": its members,
    /// keys as hex), called `name`. `Connection` missing is IP, as aiohomekit reads it; `BLE` and `CoAP`
    /// (Thread) are skipped. Data that lacks a member or holds an impossible one is skipped with the
    /// member's name, never its value.
    public init(name: String, data: JSONValue) {
        self.name = name
        accessoryPairingID = data["AccessoryPairingID"].flatMap { if case .string(let s) = $0 { s } else { nil } }
        let connection: String
        switch data["Connection"] {
        case nil, .null?: connection = "IP"
        case .string(let text)?: connection = text
        default: connection = "?"
        }
        switch connection {
        case "IP":
            do throws(JSONFieldError) {
                kind = .ip(try Self.pairing(name: name, data: data))
            } catch {
                kind = .skipped(reason: "its pairing data cannot be read (\(error))")
            }
        case "BLE": kind = .skipped(reason: "a Bluetooth (BLE) accessory: hap2mqtt speaks HAP over IP only")
        case "CoAP": kind = .skipped(reason: "a Thread accessory (HAP over CoAP): hap2mqtt speaks HAP over IP only")
        default: kind = .skipped(reason: "its connection \(connection.jsonQuoted) is not HAP over IP")
        }
    }

    /// The IP pairing in `data`.
    /// - Throws: `JSONFieldError` naming the member that is missing or impossible.
    private static func pairing(name: String, data: JSONValue) throws(JSONFieldError) -> Pairing {
        let fields = try JSONFields(data)
        let controllerPairingID = try fields.string("iOSPairingId")
        let seed = try hex(fields, "iOSDeviceLTSK")
        let publicKey = try hex(fields, "iOSDeviceLTPK")
        guard let controller = try? ControllerIdentity(pairingID: controllerPairingID, seed: seed),
            controller.publicKey == publicKey
        else { throw .invalid("iOSDeviceLTPK", reason: "the public key does not belong to iOSDeviceLTSK") }
        let host: String
        if case .string(let address)? = data["AccessoryIP"] {
            host = address
        } else if case .string(let address)? = data["AccessoryIPs"]?[0] {
            host = address
        } else {
            throw .missing("AccessoryIP")
        }
        return Pairing(
            accessoryPairingID: try fields.string("AccessoryPairingID"),
            accessoryLTPK: try hex(fields, "AccessoryLTPK"), controllerPairingID: controllerPairingID, host: host,
            port: try fields.integer("AccessoryPort"), name: name.isEmpty ? nil : name, controller: controller)
    }

    /// The 32 bytes of the hex string at `key`.
    private static func hex(_ fields: JSONFields, _ key: String) throws(JSONFieldError) -> [UInt8] {
        guard let bytes = Hex.decode(try fields.string(key)), bytes.count == Ed25519PrivateKey.keyLength else {
            throw .invalid(key, reason: "not \(Ed25519PrivateKey.keyLength) bytes of hex")
        }
        return bytes
    }
}

extension ForeignPairing {
    /// The HomeKit Controller entries of Home Assistant's `.storage/core.config_entries` (a store of
    /// `{"version":…,"key":"core.config_entries","data":{"entries":[{"domain":…,"title":…,"data":{…}},…]}}`),
    /// in the file's order; other integrations' entries are left out.
    /// - Throws: `JSONFieldError` when the text is not such a store.
    public static func homeAssistantEntries(_ store: JSONValue) throws(JSONFieldError) -> [ForeignPairing] {
        let fields = try JSONFields(store)
        guard try fields.string("key") == "core.config_entries" else {
            throw .invalid("key", reason: "not Home Assistant's core.config_entries")
        }
        guard case .array(let entries)? = store["data"]?["entries"] else { throw .missing("data.entries") }
        return entries.compactMap { entry in
            guard case .string("homekit_controller")? = entry["domain"], let data = entry["data"] else { return nil }
            let title: String
            if case .string(let text)? = entry["title"] { title = text } else { title = "" }
            return ForeignPairing(name: title, data: data)
        }
    }

    /// The pairings of aiohomekit's own pairing file (`{alias: pairing data, …}`), in the file's order.
    /// - Throws: `JSONFieldError` when it is not an object of objects.
    public static func aiohomekitFile(_ file: JSONValue) throws(JSONFieldError) -> [ForeignPairing] {
        guard case .object(let aliases) = file else { throw .notAnObject }
        var pairings: [ForeignPairing] = []
        for alias in aliases {
            guard case .object = alias.value else { throw .wrongType(alias.key) }
            pairings.append(ForeignPairing(name: alias.key, data: alias.value))
        }
        return pairings
    }
}
