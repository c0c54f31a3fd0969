public import HomeModel
public import JSON

/// The accessories of one accessory server, read from its `GET /accessories` body (HAP spec §6.7.3;
/// docs/hap-notes.md §4.1):
/// `{"accessories":[{"aid":1,"services":[{"iid":1,"type":"3E","characteristics":[…]}]}]}`.
///
/// Reading is forgiving below the top level: an accessory, service or characteristic that lacks its id
/// or type, or repeats an id already seen in its accessory, is skipped and recorded in `problems`; odd
/// metadata is read best-effort (see `Characteristic`'s reader). Only a body that is not JSON, or not an
/// object with an `accessories` array, fails as a whole.
public struct HAPAccessoryList: Sendable, Hashable {
    /// The accessories in the order the server listed them, with ids `<serverID>/<aid>`.
    public var accessories: [Accessory]
    /// What was skipped or adjusted, for the log.
    public var problems: [HAPModelProblem]

    /// Reads an `/accessories` body for the accessory server with pairing id `serverID`.
    /// - Throws: `HAPModelError.invalidJSON` when the body is not JSON; `.status` when it is a bare HAP
    ///   status (`{"status":-70401}`); `.unexpectedBody` when it has no `accessories` array.
    public init(body: [UInt8], serverID: String) throws(HAPModelError) {
        let json: JSONValue
        do throws(JSONError) { json = try JSONValue(parsing: body) } catch { throw .invalidJSON(error) }
        try self.init(json: json, serverID: serverID)
    }

    /// Reads an already parsed `/accessories` body; see `init(body:serverID:)`.
    /// - Throws: as `init(body:serverID:)`, without `.invalidJSON`.
    public init(json: JSONValue, serverID: String) throws(HAPModelError) {
        guard let list = json["accessories"]?.arrayValue else {
            if let status = json["status"]?.intValue { throw .status(HAPStatus(normalizing: status), httpStatus: 200) }
            throw .unexpectedBody("expected an object with an \"accessories\" array")
        }
        var problems: [HAPModelProblem] = []
        var accessories: [Accessory] = []
        var seenAIDs = Set<Int>()
        for (index, item) in list.enumerated() {
            guard let aid = item["aid"]?.intValue, aid >= 1 else {
                problems.append(
                    HAPModelProblem(location: "accessory #\(index + 1)", action: .skipped, reason: "no valid \"aid\""))
                continue
            }
            guard seenAIDs.insert(aid).inserted else {
                problems.append(
                    HAPModelProblem(
                        location: "aid \(aid)", action: .skipped, reason: "a second accessory with the same aid"))
                continue
            }
            guard let services = item["services"]?.arrayValue else {
                problems.append(
                    HAPModelProblem(location: "aid \(aid)", action: .skipped, reason: "no \"services\" array"))
                continue
            }
            let read = Self.services(services, aid: aid, problems: &problems)
            accessories.append(Accessory(id: AccessoryID(serverID: serverID, aid: aid), services: read))
        }
        self.accessories = accessories
        self.problems = problems
    }

    private static func services(_ list: [JSONValue], aid: Int, problems: inout [HAPModelProblem]) -> [Service] {
        var services: [Service] = []
        var seenServiceIIDs = Set<Int>()
        var seenCharacteristicIIDs = Set<Int>()
        for json in list {
            guard let iid = json["iid"]?.intValue, iid >= 0 else {
                problems.append(
                    HAPModelProblem(location: "aid \(aid) service", action: .skipped, reason: "no valid \"iid\""))
                continue
            }
            // Made only for a problem: a string per service would cost every `/accessories` read.
            var here: String { "aid \(aid) service iid \(iid)" }
            guard let typeText = json["type"]?.stringValue, let type = HAPType(typeText) else {
                problems.append(
                    HAPModelProblem(
                        location: here, action: .skipped,
                        reason: "\"type\" is not a HAP type UUID: \(json["type"]?.description ?? "missing")"))
                continue
            }
            guard seenServiceIIDs.insert(iid).inserted else {
                problems.append(
                    HAPModelProblem(location: here, action: .skipped, reason: "a second service with the same iid"))
                continue
            }
            var characteristics: [Characteristic] = []
            if let list = json["characteristics"]?.arrayValue {
                for c in list {
                    guard
                        let characteristic = Characteristic.fromHAP(
                            c, location: "aid \(aid) characteristic", problems: &problems)
                    else { continue }
                    guard seenCharacteristicIIDs.insert(characteristic.iid).inserted else {
                        problems.append(
                            HAPModelProblem(
                                location: "aid \(aid) characteristic iid \(characteristic.iid)", action: .skipped,
                                reason: "a second characteristic with the same iid"))
                        continue
                    }
                    characteristics.append(characteristic)
                }
            } else {
                problems.append(
                    HAPModelProblem(
                        location: here, action: .adjusted, reason: "no \"characteristics\" array; read as empty"))
            }
            services.append(
                Service(
                    iid: iid, type: type, isPrimary: flag(json["primary"]), isHidden: flag(json["hidden"]),
                    linked: json["linked"]?.arrayValue?.compactMap(\.intValue) ?? [], characteristics: characteristics))
        }
        return services
    }

    /// `true`, or `1` as some servers send it.
    private static func flag(_ json: JSONValue?) -> Bool { json?.boolValue ?? (json?.int64Value == 1) }
}
