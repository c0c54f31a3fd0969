import Gateway
import HomeStore
import JSON

/// The page's management: pair, unpair and refresh through the same reading and operation as
/// `bridge/request/<command>` (`Gateway.managementRequest`, on run's one `Management`), the accessories
/// seen on the network, and health (docs/DESIGN.md "Web page"). The setup code of a pair goes to the
/// operation and nowhere else: neither the log nor an answer carries it.
extension WebPage {
    /// `POST /api/bridge/request/<pair|refresh|unpair>`: `{"status":"ok","data":…}` as
    /// `bridge/response/<command>` carries it, or the error's line with a status that says what kind it
    /// is: 400 (a missing field, a wrong type, a malformed setup code), 404 (no such accessory), 409
    /// (another pair is under way), 422 (a wrong setup code, paired elsewhere), 502 (cannot be reached).
    func managementRequest(_ command: String, _ request: JSONObject) async -> HTTPResponse {
        switch await Gateway.managementRequest(command, request, with: management) {
        case .success(let data):
            logger.notice("web page: \(command) done, \(Gateway.loggedAnswer(command, data))")
            return .json(JSONValue.object(["status": "ok", "data": data]).description)
        case .failure(let error):
            logger.warning("web page: \(command) failed: \(error)")
            return .json(status: Self.status(of: error), error: error.description)
        }
    }

    /// `GET /api/discovered`: `{"discovery":true,"accessories":[…]}`, the list as `bridge/discovered`
    /// carries it; `"discovery":false` with an empty list when discovery is off (pair by host and port).
    func discoveredList() async -> HTTPResponse {
        .json(Self.discoveredJSON(await management.discovered(), discovery: management.discovery != nil))
    }

    /// `GET /api/health`: the `bridge/health` object now (uptime, memory, MQTT counts, each accessory
    /// server's connection and counts); 503 before the gateway is attached.
    func health() async -> HTTPResponse {
        do {
            return .json(try await management.health())
        } catch {
            return .json(status: 503, error: error.description)
        }
    }

    /// Sends the list of accessories seen on the network to the page's event streams (`discovered`) at
    /// once and on every change, until cancelled or discovery stops; nothing when discovery is off.
    func followDiscovered() async {
        guard let discovery = management.discovery else { return }
        for await list in await discovery.discoveredAccessoryChanges() {
            guard !Task.isCancelled else { return }
            hub.broadcast("discovered", Self.discoveredJSON(list, discovery: true))
        }
    }

    private static func discoveredJSON(_ list: [DiscoveredAccessory], discovery: Bool) -> String {
        JSONValue.object(["discovery": .bool(discovery), "accessories": Gateway.discoveredJSON(list)]).description
    }

    private static func status(of error: ManagementError) -> Int {
        switch error {
        case .invalidRequest, .invalidSetupCode: return 400
        case .unknownAccessory: return 404
        case .busy: return 409
        case .wrongSetupCode, .alreadyPaired: return 422
        case .unreachable, .failed: return 502
        case .notRunning: return 503
        }
    }
}
