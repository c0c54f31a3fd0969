import HomeModel
import SystemSupport

extension HAPClient {
    /// Writes values in one `PUT /characteristics` (HAP spec §6.7.2.2): 204 means all succeeded, 207 lists
    /// each characteristic's status and, for items with `wantsResponse` (`"r":true`, characteristics with
    /// `wr`), the write response in `value`.
    ///
    /// With `timed`, the write is a timed write (HAP spec §6.7.2.4; docs/hap-notes.md §4.5), which
    /// characteristics with `tw` (locks, garage doors) need: `PUT /prepare` with `ttl` and a random `pid`
    /// first, then the write carrying the same `pid`. When the accessory refuses the prepare, nothing is
    /// written and every result carries its status.
    ///
    /// With `answerBy`, every answer must come by then, and a request whose turn on the connection comes
    /// later is not sent (`.notSent`).
    /// - Returns: one result per written characteristic.
    /// - Throws: `.invalidResponse` for an answer that is not a HAP result, `.notSent` when the request never
    ///   went out, or why the connection closed.
    public func write(
        _ items: [HAPCharacteristicWriteItem], timed: Bool = false, ttl: Duration = HAPClient.defaultTimedWriteTTL,
        answerBy: ContinuousClock.Instant? = nil
    ) async throws(HAPConnectionError) -> [HAPCharacteristicID: HAPCharacteristicResult] {
        guard !items.isEmpty else { return [:] }
        let ids = items.map(\.id)
        var pid: UInt64?
        if timed {
            let id = UInt64.random(in: 1...UInt64.max)
            let status = try await prepare(pid: id, ttl: ttl, answerBy: answerBy)
            guard status.isSuccess else {
                return Dictionary(ids.map { ($0, HAPCharacteristicResult(id: $0, status: status)) }) { first, _ in first
                }
            }
            pid = id
        }
        return try await characteristics(
            HAPRequests.writeCharacteristics(items, pid: pid), requested: ids, answerBy: answerBy)
    }

    /// `PUT /prepare` for a timed write with `pid`, valid for `ttl`; the accessory's status.
    private func prepare(pid: UInt64, ttl: Duration, answerBy: ContinuousClock.Instant?)
        async throws(HAPConnectionError)
        -> HAPStatus
    {
        let milliseconds = Int(clamping: ttl.inMilliseconds)
        let response = try await encryptedSend(
            HAPRequests.prepare(ttlMilliseconds: max(milliseconds, 1), pid: pid), answerBy: answerBy)
        do {
            return try HAPCharacteristicResult.status(httpStatus: response.status, body: response.body)
        } catch {
            throw .invalidResponse(error, request: "PUT /prepare")
        }
    }

    /// Makes a paired accessory identify itself (blink, beep) by writing `true` to the Identify
    /// characteristic (type `14`) of its AccessoryInformation service (docs/hap-notes.md §4.7; aiohomekit
    /// does the same). The characteristic's iid comes from `GET /accessories`.
    /// - Parameter aid: the accessory; 1 is the accessory server itself (or the bridge).
    /// - Throws: `.refused` with the accessory's status when it refuses the write (`-70409` when the
    ///   accessory or its Identify characteristic does not exist), `.invalidResponse`, or why the
    ///   connection closed.
    public func identify(aid: Int = 1) async throws(HAPConnectionError) {
        let request = "identify of aid \(aid)"
        let list = try await accessories()
        guard let accessory = list.accessories.first(where: { $0.aid == aid }),
            let identify = accessory.informationService?.characteristic(ofType: .Characteristic.identify)
        else { throw .refused(.resourceDoesNotExist, request: request) }
        let id = HAPCharacteristicID(aid: aid, iid: identify.iid)
        let results = try await write([HAPCharacteristicWriteItem(id: id, value: .bool(true))])
        let status = results[id]?.status ?? .resourceDoesNotExist
        guard status.isSuccess else { throw .refused(status, request: request) }
    }
}
