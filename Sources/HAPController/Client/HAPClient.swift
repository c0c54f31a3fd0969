import HomeModel

/// The HAP requests of a paired controller (HAP spec §6.7; docs/hap-notes.md §4), on a pair-verified
/// `HAPConnection` to the accessory server of `pairing`. All requests share that one connection, in
/// order (embedded accessories allow few connections, docs/hap-notes.md §7.11).
///
/// Get one from `HAPController.connect(to:)`, or wrap a connection you verified yourself. Every method
/// throws `HAPConnectionError`; per-characteristic failures are not errors but results with a HAP status.
public struct HAPClient: Sendable {
    /// The encrypted connection the requests go over.
    public let connection: HAPConnection
    /// The pairing of the accessory server: its pairing id names the accessories (`<id>/<aid>`).
    public let pairing: Pairing

    /// Characteristics read in one `GET /characteristics`; longer lists are split, so the request line
    /// stays short (HAP-python refuses request heads over 16 KiB).
    public static let maximumReadBatch = 100
    /// How long a prepared timed write stays valid on the accessory.
    public static let defaultTimedWriteTTL: Duration = .seconds(5)

    /// A client on `connection`, which must be pair-verified with the accessory of `pairing`.
    public init(connection: HAPConnection, pairing: Pairing) {
        self.connection = connection
        self.pairing = pairing
    }

    /// The connection's event stream: the values of each `EVENT/1.0`, for characteristics subscribed with
    /// `subscribe`. Finishes when the connection closes; `connection.waitUntilClosed()` says why.
    public var events: AsyncStream<[HAPEventValue]> { connection.events }

    /// Every accessory, service and characteristic with their current values (`GET /accessories`, HAP spec
    /// §6.7.3), with ids `<pairing id>/<aid>`. Entries the reader skipped or adjusted are in `problems`.
    /// - Throws: `.invalidResponse` when the answer is not an accessory list, `.refused` for a HAP status,
    ///   or why the connection closed.
    public func accessories() async throws(HAPConnectionError) -> HAPAccessoryList {
        try await accessoriesWithBody().list
    }

    /// `accessories()`, with the body as the accessory sent it (the accessory provider caches it).
    func accessoriesWithBody() async throws(HAPConnectionError) -> (list: HAPAccessoryList, body: [UInt8]) {
        let request = "GET /accessories"
        let response = try await encryptedSend(HAPRequests.accessories())
        guard response.isSuccess else { throw HAPConnection.refusal(response, request: request) }
        do {
            return (try HAPAccessoryList(body: response.body, serverID: pairing.accessoryPairingID), response.body)
        } catch .status(let status, _) {
            throw .refused(status, request: request)
        } catch {
            throw .invalidResponse(error, request: request)
        }
    }

    /// Reads characteristics (`GET /characteristics`, HAP spec §6.7.4), one result per id: the value, or
    /// the HAP status the accessory gave for it. More than `maximumReadBatch` ids are read in several
    /// requests.
    /// - Parameters:
    ///   - meta: also return format, unit and constraints (in each result's `item`).
    ///   - perms: also return the permissions.
    ///   - type: also return the type.
    ///   - events: also return whether this connection is subscribed (`ev`).
    ///   - timeout: the limit for each answer; nil for the connection's request time-out. A request
    ///     without an answer in time closes the connection.
    /// - Throws: `.invalidResponse` for an answer that is not a characteristic list, or why the
    ///   connection closed.
    public func read(
        _ ids: [HAPCharacteristicID], meta: Bool = false, perms: Bool = false, type: Bool = false, events: Bool = false,
        timeout: Duration? = nil
    ) async throws(HAPConnectionError) -> [HAPCharacteristicID: HAPCharacteristicResult] {
        var results: [HAPCharacteristicID: HAPCharacteristicResult] = [:]
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(start + Self.maximumReadBatch, ids.count)])
            start += batch.count
            let request = HAPRequests.readCharacteristics(batch, meta: meta, perms: perms, type: type, events: events)
            results.merge(try await characteristics(request, requested: batch, timeout: timeout)) { _, new in new }
        }
        return results
    }

    /// Turns events on or off for characteristics (HAP spec §6.8), one `PUT /characteristics` per aid as
    /// iOS sends them (docs/hap-notes.md §7.5). Subscriptions end with the connection.
    /// - Returns: one result per id; `-70406` for a characteristic without events.
    /// - Throws: `.invalidResponse`, or why the connection closed.
    @discardableResult
    public func subscribe(_ ids: [HAPCharacteristicID], enable: Bool = true) async throws(HAPConnectionError)
        -> [HAPCharacteristicID: HAPCharacteristicResult]
    {
        var results: [HAPCharacteristicID: HAPCharacteristicResult] = [:]
        for (_, group) in Dictionary(grouping: ids, by: \.aid).sorted(by: { $0.key < $1.key }) {
            for request in HAPRequests.subscribe(group, enable: enable) {
                results.merge(try await characteristics(request, requested: group)) { _, new in new }
            }
        }
        return results
    }

    /// Sends `request` (GET or PUT `/characteristics`) and reads the per-characteristic results: one for
    /// each of `requested`, and no other. Results for characteristics not asked about are left out: an
    /// accessory that adds them (a `-70402` for another accessory in every answer) would otherwise make
    /// what was not asked look answered, or unreachable.
    func characteristics(
        _ request: HTTPRequest, requested: [HAPCharacteristicID], timeout: Duration? = nil,
        answerBy: ContinuousClock.Instant? = nil
    ) async throws(HAPConnectionError) -> [HAPCharacteristicID: HAPCharacteristicResult] {
        let response = try await encryptedSend(request, timeout: timeout, answerBy: answerBy)
        do {
            let results = try HAPCharacteristicResult.parse(
                httpStatus: response.status, body: response.body, requested: requested)
            // Every requested id has a result (parse fills the missing ones), so more means extras.
            let asked = Set(requested)
            guard results.count > asked.count else { return results }
            return results.filter { asked.contains($0.key) }
        } catch {
            throw .invalidResponse(error, request: "\(request.method.rawValue) \(request.path)")
        }
    }

    /// `connection.send`, refused before anything is sent when the connection is not encrypted.
    func encryptedSend(
        _ request: HTTPRequest, timeout: Duration? = nil, answerBy: ContinuousClock.Instant? = nil
    ) async throws(HAPConnectionError) -> HTTPMessage {
        try await connection.sendEncrypted(request, timeout: timeout, answerBy: answerBy)
    }
}
