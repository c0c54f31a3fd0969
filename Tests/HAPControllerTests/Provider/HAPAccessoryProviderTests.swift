import Foundation
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Synchronization
import Testing

@testable import HAPController

#if canImport(Glibc)
    import Glibc
#endif

/// The provider's logic where a real accessory cannot show it: a bridged accessory answering -70402, the
/// cached structure at a start without the accessory, and the back-off when pair-verify is reset.
@Suite("HAP accessory provider against scripted accessories")
struct HAPAccessoryProviderTests {
    /// A bridge (aid 1, with a firmware revision) and a lamp behind it (aid 2, On with events).
    static let accessories = #"""
        {"accessories":[
        {"aid":1,"services":[{"iid":1,"type":"3E","characteristics":[
          {"iid":2,"type":"23","perms":["pr"],"format":"string","value":"Bridge"},
          {"iid":3,"type":"52","perms":["pr"],"format":"string","value":"1.0"},
          {"iid":4,"type":"14","perms":["pw"],"format":"bool"}]}]},
        {"aid":2,"services":[{"iid":1,"type":"3E","characteristics":[
          {"iid":2,"type":"23","perms":["pr"],"format":"string","value":"Lamp"},
          {"iid":3,"type":"14","perms":["pw"],"format":"bool"}]},
          {"iid":9,"type":"43","characteristics":[{"iid":10,"type":"25","perms":["pr","pw","ev"],"format":"bool","value":true}]}]}]}
        """#

    /// Quiet settings: no poll or keep-alive during a test unless it asks.
    static let quiet = HAPProviderSettings(pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600))

    /// A controller in a fresh state directory, paired with a scripted accessory.
    static func paired() async throws -> (TemporaryDirectory, HAPController, ScriptedAccessory, Pairing) {
        let directory = try TemporaryDirectory()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let scripted = try ScriptedAccessory()
        return (directory, controller, scripted, try await scripted.pair(try await controller.identity()))
    }

    @Test(
        "a bridged accessory answering -70402 is offline alone (its name, which the bridge knows, aside), back with its next event after its values were read again; reads say why"
    )
    func bridgedAccessoryUnreachable() async throws {
        let (directory, controller, scripted, pairing) = try await Self.paired()
        defer { directory.remove() }
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: Self.quiet, logger: Logger(label: "hap"))
        let events = ProviderEvents(provider.events)
        await provider.start()

        await scripted.accept()
        try await scripted.answerPairVerify()
        #expect(try await scripted.readRequest().line == "GET /accessories HTTP/1.1")
        try await scripted.send(ScriptedAccessory.response(json: Self.accessories))
        #expect(try await scripted.readRequest().line == "GET /characteristics?id=1.2,1.3,2.2,2.10 HTTP/1.1")
        try await scripted.send(
            ScriptedAccessory.response(
                status: 207,
                json: #"""
                    {"characteristics":[{"aid":1,"iid":2,"status":0,"value":"Bridge"},{"aid":1,"iid":3,"status":0,"value":"1.0"},
                    {"aid":2,"iid":2,"status":0,"value":"Lamp"},{"aid":2,"iid":10,"status":-70402}]}
                    """#))
        let subscribe = try await scripted.readRequest()
        #expect(subscribe.line == "PUT /characteristics HTTP/1.1")
        #expect(
            String(decoding: subscribe.body, as: UTF8.self) == #"{"characteristics":[{"aid":2,"iid":10,"ev":true}]}"#)
        try await scripted.send(ScriptedAccessory.response(status: 204, body: []))

        _ = try await events.wait(count: 3)
        #expect(await events.summaries == ["reachability [2] false", "synced [1, 2]", "reachability [1] true"])
        guard case .synced(let synced) = await events.items[1] else { return }
        #expect(synced[1].name == "Lamp")
        #expect(
            synced[1].services[1].characteristics[0].value == .bool(true),
            "a failed read keeps the value of /accessories")
        #expect(
            directory.files().contains(
                "accessories-\(pairing.accessoryPairingID.replacingOccurrences(of: ":", with: "-")).json"))

        try await scripted.send(ScriptedAccessory.event(#"{"characteristics":[{"aid":2,"iid":10,"value":false}]}"#))
        // Back, but its values are read again first: they may have changed while it was away.
        #expect(try await scripted.readRequest().line == "GET /characteristics?id=2.2,2.10 HTTP/1.1")
        try await scripted.send(
            ScriptedAccessory.response(
                json: #"{"characteristics":[{"aid":2,"iid":2,"value":"Lamp"},{"aid":2,"iid":10,"value":false}]}"#))
        _ = try await events.wait(count: 6)
        #expect(
            await events.summaries.suffix(3) == [
                "values 2.10=false event", "values 2.2=Lamp poll 2.10=false poll", "reachability [2] true",
            ])

        let lamp = CharacteristicAddress(accessory: AccessoryID(serverID: pairing.accessoryPairingID, aid: 2), iid: 10)
        let read = Task { await provider.read([lamp]) }
        #expect(try await scripted.readRequest().line == "GET /characteristics?id=2.10 HTTP/1.1")
        try await scripted.send(
            ScriptedAccessory.response(status: 207, json: #"{"characteristics":[{"aid":2,"iid":10,"status":-70402}]}"#))
        #expect(await read.value[lamp] == .failure(.status(.serviceCommunicationFailure)))
        _ = try await events.wait(count: 7)
        #expect(await events.summaries.last == "reachability [2] false")

        await provider.stop()
        await scripted.close()
    }

    /// A provider synced with the scripted bridge and lamp (`accessories`), every read answered, the lamp's
    /// On subscribed; its events so far are the sync's two.
    static func syncedLamp(log: LogCapture = LogCapture()) async throws -> (
        TemporaryDirectory, ScriptedAccessory, Pairing, HAPAccessoryProvider, ProviderEvents
    ) {
        let (directory, controller, scripted, pairing) = try await Self.paired()
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: Self.quiet, logger: log.logger(label: "hap"))
        let events = ProviderEvents(provider.events)
        await provider.start()
        try await answerSync(scripted)
        _ = try await events.wait(count: 2)
        #expect(await events.summaries == ["synced [1, 2]", "reachability [1, 2] true"])
        return (directory, scripted, pairing, provider, events)
    }

    /// Accepts the provider's next connection and answers its pair-verify and sync: `/accessories`, the
    /// read of every value, the subscription.
    static func answerSync(_ scripted: ScriptedAccessory, accessories: String = Self.accessories) async throws {
        await scripted.accept()
        try await scripted.answerPairVerify()
        _ = try await scripted.readRequest()
        try await scripted.send(ScriptedAccessory.response(json: accessories))
        _ = try await scripted.readRequest()
        try await scripted.send(
            ScriptedAccessory.response(
                json: #"""
                    {"characteristics":[{"aid":1,"iid":2,"value":"Bridge"},{"aid":1,"iid":3,"value":"1.0"},
                    {"aid":2,"iid":2,"value":"Lamp"},{"aid":2,"iid":10,"value":true}]}
                    """#))
        _ = try await scripted.readRequest()
        try await scripted.send(ScriptedAccessory.response(status: 204, body: []))
    }

    @Test("what the accessory list's reader skipped is logged as a warning, once while it stays")
    func listProblemsLoggedOnce() async throws {
        let (directory, controller, scripted, pairing) = try await Self.paired()
        defer { directory.remove() }
        let log = LogCapture()
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: Self.quiet, logger: log.logger(label: "hap"))
        await provider.start()
        // The lamp listed twice: the second is skipped.
        let twice = String(Self.accessories.dropLast(2)) + #",{"aid":2,"services":[]}]}"#
        try await Self.answerSync(scripted, accessories: twice)
        let line = "the accessory list of \(pairing.displayName): aid 2 skipped: a second accessory with the same aid"
        _ = try await log.waitFor(.warning, containing: line)
        await scripted.dropConnection()
        try await Self.answerSync(scripted, accessories: twice)
        try await eventually("the second sync") { log.records(.info, containing: "connected to").count >= 2 }
        #expect(log.records(.warning, containing: line).count == 1, "\(log.lines)")
        await provider.stop()
        await scripted.close()
    }

    @Test("an accessory that ends every session right after its sync is reconnected with growing back-off")
    func shortSessionsBackOff() async throws {
        let (directory, controller, scripted, pairing) = try await Self.paired()
        defer { directory.remove() }
        var settings = Self.quiet
        settings.backoff = ReconnectBackoff(initial: .milliseconds(200), maximum: .seconds(60))
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: Logger(label: "hap"))
        await provider.start()
        var synced: [ContinuousClock.Instant] = []
        for _ in 0..<4 {
            try await Self.answerSync(scripted)
            synced.append(.now)
            // Ended before the session counts as healthy (1 s): a sync, then the close.
            await scripted.dropConnection()
        }
        await provider.stop()
        await scripted.close()
        // Each wait is at least its back-off step less the jitter: 0.2 s doubling, -20 %. Without growth
        // every wait would be the first step; a busy machine only makes the waits longer.
        for n in 1...3 {
            let gap = synced[n] - synced[n - 1]
            #expect(gap >= .seconds(0.16 * Double(1 << (n - 1))), "wait \(n) before sync \(n + 1) was \(gap)")
        }
    }

    @Test("a read answer that adds results nobody asked for (-70402 for another accessory) changes nothing")
    func unaskedResultsIgnored() async throws {
        let (directory, scripted, pairing, provider, events) = try await Self.syncedLamp()
        defer { directory.remove() }
        let firmware = CharacteristicAddress(
            accessory: AccessoryID(serverID: pairing.accessoryPairingID, aid: 1), iid: 3)
        let read = Task { await provider.read([firmware]) }
        #expect(try await scripted.readRequest().line == "GET /characteristics?id=1.3 HTTP/1.1")
        try await scripted.send(
            ScriptedAccessory.response(
                status: 207,
                json:
                    #"{"characteristics":[{"aid":1,"iid":3,"status":0,"value":"1.0"},{"aid":2,"iid":10,"status":-70402}]}"#
            ))
        #expect(await read.value[firmware] == .success(.string("1.0")))
        // Events come in order: once this one is out, a reachability change from the read would be too.
        try await scripted.send(ScriptedAccessory.event(#"{"characteristics":[{"aid":2,"iid":10,"value":false}]}"#))
        _ = try await events.wait(count: 3)
        let summaries = await events.summaries
        #expect(summaries.suffix(1) == ["values 2.10=false event"] && summaries.count == 3, "\(summaries)")

        await provider.stop()
        await scripted.close()
    }

    @Test(
        "a value its format cannot carry ('banana' for a bool) is an error for a read, is dropped from events, and is logged once a minute"
    )
    func valuesOfTheWrongType() async throws {
        let log = LogCapture()
        let (directory, scripted, pairing, provider, events) = try await Self.syncedLamp(log: log)
        defer { directory.remove() }
        let on = CharacteristicAddress(accessory: AccessoryID(serverID: pairing.accessoryPairingID, aid: 2), iid: 10)
        let read = Task { await provider.read([on]) }
        #expect(try await scripted.readRequest().line == "GET /characteristics?id=2.10 HTTP/1.1")
        try await scripted.send(
            ScriptedAccessory.response(json: #"{"characteristics":[{"aid":2,"iid":10,"value":"banana"}]}"#))
        #expect(
            await read.value[on]
                == .failure(
                    .failed(
                        #"the accessory answered with a value its format cannot carry: "banana" is not a valid bool value"#
                    )))
        try await scripted.send(ScriptedAccessory.event(#"{"characteristics":[{"aid":2,"iid":10,"value":[1,2]}]}"#))
        try await scripted.send(ScriptedAccessory.event(#"{"characteristics":[{"aid":2,"iid":10,"value":false}]}"#))
        _ = try await events.wait(count: 3)
        let summaries = await events.summaries
        #expect(summaries.count == 3 && summaries.last == "values 2.10=false event", "\(summaries)")
        let lines = log.records(.warning, containing: "ignored a value of")
        #expect(
            lines.count == 1 && lines.first?.message.contains("for 2.10: \"banana\" is not a valid bool value") == true,
            "\(log.lines)")
        await provider.stop()
        await scripted.close()
    }

    @Test("an accessory list without aid 1 (the accessory server itself) is refused: nothing is removed or cached")
    func listWithoutServerRefused() async throws {
        let (directory, controller, scripted, pairing) = try await Self.paired()
        defer { directory.remove() }
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: Self.quiet, logger: Logger(label: "hap"))
        let events = ProviderEvents(provider.events)
        await provider.start()
        await scripted.accept()
        try await scripted.answerPairVerify()
        _ = try await scripted.readRequest()
        try await scripted.send(ScriptedAccessory.response(json: #"{"accessories":[]}"#))
        _ = try await events.wait(count: 1)
        #expect(await events.summaries == ["syncFailed"])
        guard case .syncFailed(let reason) = await events.items[0] else { return }
        #expect(reason.contains("no accessory with aid 1"), "\(reason)")
        #expect(!directory.files().contains { $0.hasPrefix("accessories-") }, "\(directory.files())")
        await provider.stop()
        await scripted.close()
    }

    @Test(
        "started while the accessory is down: the cached accessories, offline and without stale values; no cache: the first sync fails"
    )
    func cachedStructure() async throws {
        let (directory, controller, scripted, pairing) = try await Self.paired()
        defer { directory.remove() }
        await scripted.close()
        let backoff = ReconnectBackoff(initial: .seconds(30), maximum: .seconds(60))
        var settings = Self.quiet
        settings.backoff = backoff

        let uncached = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: Logger(label: "hap"))
        let failed = ProviderEvents(uncached.events)
        await uncached.start()
        _ = try await failed.wait(count: 1)
        #expect(await failed.summaries == ["syncFailed"])
        await uncached.stop()

        try AccessoryCache(directory: directory.stateDirectory, accessoryPairingID: pairing.accessoryPairingID).save(
            Array(Self.accessories.utf8))
        settings.excludedAIDs = []
        let cached = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: Logger(label: "hap"))
        let events = ProviderEvents(cached.events)
        await cached.start()
        _ = try await events.wait(count: 2)
        #expect(await events.summaries == ["reachability [1, 2] false", "synced [1, 2]"])
        guard case .synced(let accessories) = await events.items[1],
            case .reachability(_, _, let reason) = await events.items[0]
        else { return }
        #expect(reason?.contains("connection refused") == true, "\(reason ?? "")")
        #expect(accessories[1].name == "Lamp", "the information service keeps its values")
        #expect(accessories[1].services[1].characteristics[0].value == nil, "no stale state is reported")
        let address = CharacteristicAddress(accessory: accessories[1].id, iid: 10)
        guard case .failure(.unreachable(let why))? = await cached.read([address])[address] else {
            Issue.record("a read without a connection fails fast as unreachable")
            return
        }
        #expect(why.contains("connection refused"))
        await #expect(throws: AccessoryError.self) { try await cached.identify(accessories[1].id) }
        await cached.stop()

        settings.excludedAIDs = [2]
        let excluding = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: Logger(label: "hap"))
        let few = ProviderEvents(excluding.events)
        await excluding.start()
        _ = try await few.wait(count: 2)
        #expect(await few.summaries == ["reachability [1] false", "synced [1]"])
        await excluding.stop()
    }

    @Test("connections reset during pair-verify are retried with back-off, not in a tight loop")
    func resetDuringPairVerify() async throws {
        var (directory, controller, scripted, pairing) = try await Self.paired()
        defer { directory.remove() }
        await scripted.close()
        let listener = try LoopbackListener.open()
        pairing.port = listener.port
        let attempts = Mutex<[ContinuousClock.Instant]>([])
        let stop = Mutex(false)
        let listening = listener.descriptor
        // Its own thread: blocked accepts on Dispatch's few shared threads would starve other tests' sockets.
        let resetter = Thread {
            while true {
                let fd = Glibc.accept(listening, nil, nil)
                if stop.withLock({ $0 }) || fd < 0 {
                    if fd >= 0 { Glibc.close(fd) }
                    return
                }
                attempts.withLock { $0.append(ContinuousClock.now) }
                var byte: UInt8 = 0
                _ = Glibc.recv(fd, &byte, 1, 0)  // pair-verify M1 arrives, then the reset
                Glibc.close(fd)
            }
        }
        resetter.start()
        var settings = Self.quiet
        settings.backoff = ReconnectBackoff(initial: .milliseconds(200), maximum: .seconds(60))
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: Logger(label: "hap"))
        let events = ProviderEvents(provider.events)
        await provider.start()
        try await eventually("four connection attempts", timeout: .seconds(120)) { attempts.withLock { $0.count } >= 4 }
        await provider.stop()
        // Each wait is at least its back-off step less the jitter: 0.2 s doubling, -20 %. A loop without
        // back-off would retry at once; a busy machine only makes the waits longer.
        let times = attempts.withLock { $0 }
        for n in 1...3 {
            let gap = times[n] - times[n - 1]
            #expect(gap >= .seconds(0.16 * Double(1 << (n - 1))), "wait \(n) before attempt \(n + 1) was \(gap)")
        }
        #expect(await events.summaries == ["syncFailed"])
        stop.withLock { $0 = true }
        if let fd = await LoopbackSocket.connect(port: listener.port) { LoopbackSocket.close(fd) }
        listener.close()
    }

    /// A bridge (aid 1) and a thermometer without events (aid 2).
    static let thermometer = #"""
        {"accessories":[
        {"aid":1,"services":[{"iid":1,"type":"3E","characteristics":[
          {"iid":2,"type":"23","perms":["pr"],"format":"string","value":"Bridge"},
          {"iid":3,"type":"52","perms":["pr"],"format":"string","value":"1.0"}]}]},
        {"aid":2,"services":[{"iid":9,"type":"8A","characteristics":[
          {"iid":10,"type":"11","perms":["pr"],"format":"float","value":20.5}]}]}]}
        """#

    /// Answers a sync of `thermometer`: `/accessories`, then the read of every value (nothing to subscribe).
    static func answerSync(_ scripted: ScriptedAccessory, temperature: Double) async throws {
        await scripted.accept()
        try await scripted.answerPairVerify()
        #expect(try await scripted.readRequest().line == "GET /accessories HTTP/1.1")
        try await scripted.send(ScriptedAccessory.response(json: thermometer))
        #expect(try await scripted.readRequest().line == "GET /characteristics?id=1.2,1.3,2.10 HTTP/1.1")
        try await scripted.send(
            ScriptedAccessory.response(
                json:
                    #"{"characteristics":[{"aid":1,"iid":2,"value":"Bridge"},{"aid":1,"iid":3,"value":"1.0"},{"aid":2,"iid":10,"value":\#(temperature)}]}"#
            ))
    }

    @Test(
        "characteristics without events are polled; a keep-alive without an answer takes everything offline, then it reconnects and syncs again"
    )
    func pollAndKeepAlive() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The unanswered keep-alive is noticed by its request time-out, so the test waits that long once.
        // Every other answer comes from this test, which a busy machine can hold up for seconds: a short
        // time-out would close the connection under an answer on its way (ScriptedAccessoryError.closed).
        let controller = HAPController(
            stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"), requestTimeout: .seconds(15))
        let scripted = try ScriptedAccessory()
        let pairing = try await scripted.pair(try await controller.identity())
        let settings = HAPProviderSettings(pollInterval: .milliseconds(300), keepaliveInterval: .milliseconds(1000))
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: Logger(label: "hap"))
        let events = ProviderEvents(provider.events)
        await provider.start()

        try await Self.answerSync(scripted, temperature: 20.5)
        _ = try await events.wait(count: 2)
        #expect(await events.summaries == ["synced [1, 2]", "reachability [1, 2] true"])
        var polls = 0
        while true {
            let request = try await scripted.readRequest()
            if request.line == "GET /characteristics?id=1.3 HTTP/1.1" {
                if polls >= 2 { break }  // the keep-alive, left unanswered once two polls went through
                try await scripted.send(
                    ScriptedAccessory.response(json: #"{"characteristics":[{"aid":1,"iid":3,"value":"1.0"}]}"#))
                continue
            }
            #expect(request.line == "GET /characteristics?id=2.10 HTTP/1.1")
            polls += 1
            try await scripted.send(
                ScriptedAccessory.response(
                    json: #"{"characteristics":[{"aid":2,"iid":10,"value":\#(21 + Double(polls))}]}"#))
        }
        _ = try await events.wait(count: 3 + polls)
        #expect(await events.summaries.last == "reachability [1, 2] false")
        #expect(await events.summaries.contains("values 2.10=22 poll"))
        #expect(await events.summaries.contains("values 2.10=23 poll"))
        #expect(await !provider.isConnected)

        try await Self.answerSync(scripted, temperature: 19)
        _ = try await events.wait(count: 5 + polls)
        #expect(await events.summaries.suffix(2) == ["synced [1, 2]", "reachability [1, 2] true"])
        guard case .synced(let again) = await events.items[3 + polls] else { return }
        #expect(again[1].services[0].characteristics[0].value == .float(19), "the values are read again")
        await provider.stop()
        await scripted.close()
    }
}
