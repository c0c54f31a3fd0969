import HomeModel
import JSON

/// The accessories of one accessory server as the provider uses them between two syncs: the accessory
/// ids, each characteristic's format by its HAP id (for values in answers and events), and the lists of
/// what is read at sync, subscribed, polled, kept alive and identified.
///
/// It keeps no copy of the accessories themselves: the home store holds the one copy of the home
/// (docs/DESIGN.md lesson 5), and with ten bridges of 1,500 characteristics a second one here was 9 MB of the
/// gateway's peak memory (Benchmarks/README.md, scenario `scale`).
struct AccessoryIndex: Sendable {
    /// The accessory ids (excluded accessories left out), in the server's order.
    let ids: [AccessoryID]
    /// The accessory id of each aid.
    private let accessoryIDs: [Int: AccessoryID]
    /// Every characteristic's format by `aid.iid`.
    let formats: [HAPCharacteristicID: CharacteristicFormat]
    /// Every characteristic with `pr`, read at each sync.
    let readable: [HAPCharacteristicID]
    /// Every characteristic with `ev`, subscribed at each sync (one request per aid).
    let evented: [HAPCharacteristicID]
    /// Readable characteristics that change but send no events: polled at the poll interval.
    var polled: [HAPCharacteristicID]
    /// Readable characteristics with `ev` that hold a state (not the information services, not stateless
    /// buttons): read at the catch-up interval, because some accessories advertise events and never send
    /// them. One found not to send them is moved to `polled` (`pollInstead(of:)`).
    private(set) var caughtUp: [HAPCharacteristicID]
    /// Readable stateless characteristics (ProgrammableSwitchEvent, ButtonEvent): a read of one tells nothing.
    let stateless: Set<HAPCharacteristicID>
    /// The cheap read that checks the connection: the bridge's (aid 1) firmware revision, as iOS does,
    /// else its first readable characteristic, else any readable one.
    let keepalive: HAPCharacteristicID?
    /// The Identify characteristic (type 14) of each aid.
    let identify: [Int: HAPCharacteristicID]
    /// Characteristics of the AccessoryInformation and protocol information services: bridges may answer
    /// them from memory for a device they cannot reach, so their answers do not show that it is reachable.
    let fixed: Set<HAPCharacteristicID>
    /// Per aid, the read that shows whether a bridged accessory answers: its first readable
    /// characteristic outside the information services (else its first readable one).
    let probe: [Int: HAPCharacteristicID]

    init(_ accessories: [Accessory]) {
        ids = accessories.map(\.id)
        accessoryIDs = Dictionary(accessories.map { ($0.aid, $0.id) }) { first, _ in first }
        var formats: [HAPCharacteristicID: CharacteristicFormat] = [:]
        var readable: [HAPCharacteristicID] = []
        var evented: [HAPCharacteristicID] = []
        var polled: [HAPCharacteristicID] = []
        var caughtUp: [HAPCharacteristicID] = []
        var stateless = Set<HAPCharacteristicID>()
        var identify: [Int: HAPCharacteristicID] = [:]
        var fixedIDs = Set<HAPCharacteristicID>()
        var probe: [Int: HAPCharacteristicID] = [:]
        for accessory in accessories {
            for service in accessory.services {
                // Accessory and protocol information do not change while connected; every sync reads them.
                let fixed =
                    service.type == .Service.accessoryInformation || service.type == .Service.protocolInformation
                for c in service.characteristics {
                    let id = HAPCharacteristicID(aid: accessory.aid, iid: c.iid)
                    guard formats[id] == nil else { continue }
                    formats[id] = c.format
                    if c.type == .Characteristic.identify, identify[accessory.aid] == nil {
                        identify[accessory.aid] = id
                    }
                    if fixed { fixedIDs.insert(id) }
                    guard c.isReadable else { continue }
                    readable.append(id)
                    if HAPCatalog.isStateless(c.type) { stateless.insert(id) }
                    if !fixed, probe[accessory.aid] == nil { probe[accessory.aid] = id }
                    if c.supportsEvents {
                        evented.append(id)
                        if !fixed, !HAPCatalog.isStateless(c.type) { caughtUp.append(id) }
                    } else if !fixed, !HAPCatalog.isStateless(c.type) {
                        polled.append(id)
                    }
                }
            }
        }
        self.formats = formats
        self.readable = readable
        self.evented = evented
        self.polled = polled
        self.caughtUp = caughtUp
        self.stateless = stateless
        self.identify = identify
        self.fixed = fixedIDs
        for id in readable where probe[id.aid] == nil { probe[id.aid] = id }
        self.probe = probe
        let bridge = accessories.first { $0.aid == 1 }
        let firmware = bridge?.informationService?.characteristic(ofType: .Characteristic.firmwareRevision)
        if let bridge, let firmware, firmware.isReadable {
            keepalive = HAPCharacteristicID(aid: bridge.aid, iid: firmware.iid)
        } else {
            keepalive = readable.first { $0.aid == 1 } ?? readable.first
        }
    }

    /// Polls `id` at the poll interval instead of trusting its events (the accessory does not send them):
    /// moved from `caughtUp` to `polled`; nothing for a characteristic not in `caughtUp`.
    mutating func pollInstead(of id: HAPCharacteristicID) {
        guard let position = caughtUp.firstIndex(of: id) else { return }
        caughtUp.remove(at: position)
        polled.append(id)
    }

    /// The aids with a `-70402` answer among `results` and no successful answer of a characteristic outside
    /// the information services.
    func unreachableAIDs(in results: [HAPCharacteristicID: HAPCharacteristicResult]) -> Set<Int> {
        let failed = results.values.filter { $0.status == .serviceCommunicationFailure }.map(\.id.aid)
        return Set(failed).subtracting(answeringAIDs(in: results))
    }

    /// The aids with a successful answer of a characteristic outside the information services.
    func answeringAIDs(in results: [HAPCharacteristicID: HAPCharacteristicResult]) -> Set<Int> {
        Set(results.values.filter { $0.status.isSuccess && !fixed.contains($0.id) }.map(\.id.aid))
    }

    /// The readable characteristics of the accessories `aids`, each a state (not a stateless button): what
    /// is read again before a bridged accessory that was unreachable is reported reachable.
    func stateful(of aids: Set<Int>) -> [HAPCharacteristicID] {
        readable.filter { aids.contains($0.aid) && !stateless.contains($0) }
    }

    /// Whether a write to `id` may be sent twice: not to an Identify or a stateless characteristic.
    func mayRepeatWrite(to id: HAPCharacteristicID) -> Bool {
        !stateless.contains(id) && identify[id.aid] != id
    }

    /// The id of the accessory `aid`.
    func accessoryID(_ aid: Int) -> AccessoryID? { accessoryIDs[aid] }

    /// Whether `id` is a characteristic of these accessories.
    func contains(_ id: HAPCharacteristicID) -> Bool { formats[id] != nil }

    /// A value from an answer or event in the characteristic's own format; nil for an unknown
    /// characteristic, `null`, or a value the format cannot carry.
    func value(_ json: JSONValue?, for id: HAPCharacteristicID) -> CharacteristicValue? {
        try? decoded(json, for: id).get()
    }

    /// `value(_:for:)`, telling a value the format cannot carry (`"banana"` for a bool) from none.
    /// - Returns: the value; nil for an unknown characteristic or `null`; `.valueMismatch` for the rest.
    func decoded(_ json: JSONValue?, for id: HAPCharacteristicID) -> Result<CharacteristicValue?, HAPModelError> {
        guard let json, let format = formats[id] else { return .success(nil) }
        do throws(HAPModelError) {
            return .success(try CharacteristicValue.decoded(fromHAP: json, format: format))
        } catch {
            return .failure(error)
        }
    }

    /// Puts read values into `accessories` (those this index was made of); characteristics whose read
    /// failed keep the value of `/accessories`.
    func apply(_ results: [HAPCharacteristicID: HAPCharacteristicResult], to accessories: inout [Accessory]) {
        for a in accessories.indices {
            let aid = accessories[a].aid
            for s in accessories[a].services.indices {
                for c in accessories[a].services[s].characteristics.indices {
                    let id = HAPCharacteristicID(aid: aid, iid: accessories[a].services[s].characteristics[c].iid)
                    guard let result = results[id], result.status.isSuccess, let value = value(result.value, for: id)
                    else { continue }
                    accessories[a].services[s].characteristics[c].value = value
                }
            }
        }
    }
}
