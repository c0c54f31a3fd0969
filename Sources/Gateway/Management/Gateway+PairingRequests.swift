public import HomeStore
public import JSON

/// The bridge requests that manage the controller pairings of an accessory (docs/topics.md "Managing the
/// gateway over MQTT"): `list_pairings`, `add_pairing` and `remove_pairing`, named after HAP's List
/// Pairings, Add Pairing and Remove Pairing (HAP spec §5.10–§5.12). Each is read in full before anything is
/// sent to the accessory, and answered with the pairings the accessory then lists.
extension Gateway {
    /// The operation of one of the three requests, or why the request is refused before anything runs.
    static func controllerPairingsOperation(_ command: String, _ request: JSONObject, with management: Management)
        -> Result<@Sendable () async -> Result<JSONValue, ManagementError>, ManagementError>
    {
        let shape: String
        switch command {
        case "add_pairing":
            shape =
                #"{"accessory":"<slug, id or pairing name>","pairing_id":"…","public_key":"<64 hex digits or base64>","admin":false}"#
        case "remove_pairing": shape = #"{"accessory":"<slug, id or pairing name>","pairing_id":"…"}"#
        default: shape = #"{"accessory":"<slug, id or pairing name>"}"#
        }
        guard let accessory = request["accessory"]?.stringValue, !accessory.isEmpty else {
            return .failure(.invalidRequest("name the accessory: \(shape)"))
        }
        if command == "list_pairings" {
            return .success({
                await answer { () async throws(ManagementError) in
                    try await management.controllerPairings(of: accessory)
                }
            })
        }
        guard let pairingID = request["pairing_id"]?.stringValue, !pairingID.isEmpty else {
            return .failure(.invalidRequest("give the controller's pairing id: \(shape)"))
        }
        if command == "remove_pairing" {
            return .success({
                await answer { () async throws(ManagementError) in
                    try await management.removeControllerPairing(pairingID, from: accessory)
                }
            })
        }
        guard let key = request["public_key"]?.stringValue else {
            return .failure(.invalidRequest("give the controller's Ed25519 public key: \(shape)"))
        }
        guard request["admin"] == nil || request["admin"]?.boolValue != nil else {
            return .failure(.invalidRequest(#""admin" must be true or false"#))
        }
        let controller: ControllerPairing
        do {
            controller = try ControllerPairing(
                parsingID: pairingID, publicKey: key, admin: request["admin"]?.boolValue ?? false)
        } catch {
            return .failure(error)
        }
        return .success({
            await answer { () async throws(ManagementError) in
                try await management.addControllerPairing(controller, to: accessory)
            }
        })
    }

    /// Runs `operation` and gives the answer's `data` (`pairingsJSON`), or its error.
    private static func answer(_ operation: () async throws(ManagementError) -> ControllerPairings) async -> Result<
        JSONValue, ManagementError
    > {
        do {
            return .success(pairingsJSON(try await operation()))
        } catch {
            return .failure(error)
        }
    }

    /// `{"id":"AA:…","name":"…","pairings":[{"pairing_id":"…","public_key":"<hex>","admin":true,
    /// "this_gateway":true},…]}`, the pairings in the accessory's order.
    public static func pairingsJSON(_ pairings: ControllerPairings) -> JSONValue {
        let list = pairings.pairings.map { pairing -> JSONValue in
            .object([
                "pairing_id": .string(pairing.id), "public_key": .string(pairing.publicKeyHex),
                "admin": .bool(pairing.admin),
                "this_gateway": .bool(pairing.id.lowercased() == pairings.ownID.lowercased()),
            ])
        }
        return .object(["id": .string(pairings.id), "name": .string(pairings.name), "pairings": .array(list)])
    }
}
