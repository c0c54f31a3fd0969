import Foundation
import HomeModel
import JSON
import Testing

@testable import HAPController

/// The learned profile of an accessory server as tables of observations and the changes they bring
/// (`AccessoryServerProfile`), its stored form, and the verification of events that feeds it
/// (`EventVerification`), without sockets or sleeps.
@Suite("Accessory server profile")
struct AccessoryServerProfileTests {
    typealias Profile = AccessoryServerProfile

    /// One observation and the change it must bring (nil: nothing new).
    struct Step: CustomStringConvertible {
        let observation: Profile.Observation
        let change: Profile.Change?
        var description: String { "\(observation)" }
    }

    static let thermometer = HAPCharacteristicID(aid: 2, iid: 10)
    static let switchOn = HAPCharacteristicID(aid: 3, iid: 9)

    static let tables: [(name: String, steps: [Step])] = [
        (
            "a characteristic whose events do not come is polled, once",
            [
                Step(observation: .eventMissing(thermometer), change: .pollInstead(thermometer)),
                Step(observation: .eventMissing(thermometer), change: nil),
                Step(observation: .eventMissing(switchOn), change: .pollInstead(switchOn)),
            ]
        ),
        (
            "out of resources halves the read batch until one is taken; a smaller refusal than the limit only",
            [
                Step(observation: .outOfResources(batch: 30), change: .readBatch(15)),
                Step(observation: .outOfResources(batch: 15), change: .readBatch(7)),
                // A read of the old size, sent before the limit changed, teaches nothing new.
                Step(observation: .outOfResources(batch: 20), change: nil),
                Step(observation: .outOfResources(batch: 7), change: .readBatch(3)),
                Step(observation: .outOfResources(batch: 3), change: .readBatch(1)),
                // A single characteristic cannot be split: its -70407 is its own answer.
                Step(observation: .outOfResources(batch: 1), change: nil),
            ]
        ),
        (
            "an idle limit is learned from the shortest quiet time, and a busy close teaches nothing",
            [
                Step(observation: .idleClose(quiet: .milliseconds(400)), change: nil),
                Step(observation: .idleClose(quiet: .seconds(20)), change: .idleLimit(.seconds(20))),
                Step(observation: .idleClose(quiet: .seconds(25)), change: nil),
                Step(observation: .idleClose(quiet: .seconds(12)), change: .idleLimit(.seconds(12))),
            ]
        ),
    ]

    @Test("observations and the changes they bring", arguments: tables.indices)
    func table(_ index: Int) {
        var profile = Profile()
        for step in Self.tables[index].steps {
            #expect(profile.learn(step.observation) == step.change, "\(Self.tables[index].name): \(step)")
        }
    }

    @Test("the profile is consulted: read batch, keep-alive below the idle limit, nothing learned by default")
    func consulted() {
        var profile = Profile()
        #expect(profile.isEmpty)
        #expect(profile.readBatch(standard: 100) == 100)
        #expect(profile.keepalive(configured: .seconds(30)) == .seconds(30))
        _ = profile.learn(.outOfResources(batch: 9))
        _ = profile.learn(.idleClose(quiet: .seconds(20)))
        #expect(profile.readBatch(standard: 100) == 4)
        #expect(profile.readBatch(standard: 2) == 2)
        #expect(profile.keepalive(configured: .seconds(30)) == .seconds(10))
        #expect(profile.keepalive(configured: .seconds(5)) == .seconds(5))
        #expect(!profile.isEmpty)
    }

    @Test("the stored form round-trips, and a damaged or hostile one is read as far as it is sound")
    func storedForm() throws {
        var profile = Profile()
        _ = profile.learn(.eventMissing(Self.switchOn))
        _ = profile.learn(.eventMissing(Self.thermometer))
        _ = profile.learn(.outOfResources(batch: 8))
        _ = profile.learn(.idleClose(quiet: .milliseconds(20_500)))
        #expect(
            String(decoding: profile.json.encoded(sortingKeys: true), as: UTF8.self)
                == #"{"idle_limit":20.5,"poll_instead_of_events":["2.10","3.9"],"read_batch_limit":4}"#)
        #expect(Profile(json: profile.json) == profile)
        #expect(Profile().json == .object([:]))

        let hostile = try JSONValue(
            parsing: Array(
                #"{"poll_instead_of_events":["2.10","x",7,"1."],"read_batch_limit":0,"idle_limit":0.2,"extra":true}"#
                    .utf8))
        let read = Profile(json: hostile)
        #expect(read.pollInsteadOfEvents == [Self.thermometer])
        #expect(read.readBatchLimit == nil)
        #expect(read.idleLimit.observed == nil)
        #expect(Profile(json: .array([])).isEmpty)
        #expect(Profile(json: ["idle_limit": .double(.infinity)]).isEmpty)
    }

    @Test("a read is refused for its size only when -70407 came and no value did")
    func refusedAsAWhole() {
        typealias Result = HAPCharacteristicResult
        let refused = Result(id: Self.thermometer, status: .outOfResources)
        let answered = Result(id: Self.switchOn, status: .success, value: .bool(true))
        let busy = Result(id: Self.switchOn, status: .resourceBusy)
        #expect(HAPAccessoryProvider.refusedAsAWhole([Self.thermometer: refused]))
        #expect(HAPAccessoryProvider.refusedAsAWhole([Self.thermometer: refused, Self.switchOn: busy]))
        #expect(!HAPAccessoryProvider.refusedAsAWhole([Self.thermometer: refused, Self.switchOn: answered]))
        #expect(!HAPAccessoryProvider.refusedAsAWhole([Self.switchOn: busy]))
        #expect(!HAPAccessoryProvider.refusedAsAWhole([:]))
    }

    @Test("the profile's file: beside the pairing, never taken for one, saved and loaded, a damaged one an error")
    func file() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = AccessoryProfileFile(directory: directory.stateDirectory, accessoryPairingID: "AA:BB:CC:DD:EE:FF")
        #expect(file.fileName == "profile-AA-BB-CC-DD-EE-FF.json")
        #expect(PairingStore.accessoryPairingID(fromFileName: file.fileName) == nil)
        #expect(try file.load().isEmpty, "none yet")
        var profile = Profile()
        _ = profile.learn(.outOfResources(batch: 10))
        try file.save(profile)
        #expect(try file.load() == profile)
        try directory.stateDirectory.write(Data("{not json".utf8), to: file.fileName)
        #expect(throws: (any Error).self) { try file.load() }
        try file.remove()
        #expect(try file.load().isEmpty)
    }

    // MARK: Event verification

    static let origin = ContinuousClock.now
    static func t(_ seconds: Double) -> ContinuousClock.Instant { origin + .seconds(seconds) }

    @Test("a value a read finds changed without an event is a verdict once the event had time to come")
    func silentCharacteristic() {
        var verification = EventVerification(watching: [Self.thermometer])
        verification.read(Self.thermometer, .double(21), at: Self.t(0))
        verification.read(Self.thermometer, .double(21), at: Self.t(300))
        #expect(verification.takeVerdicts(before: Self.t(400)).isEmpty, "unchanged: nothing to say")
        verification.read(Self.thermometer, .double(22.5), at: Self.t(600))
        #expect(verification.takeVerdicts(before: Self.t(600)).isEmpty, "an event may still be on its way")
        #expect(verification.takeVerdicts(before: Self.t(606)) == [Self.thermometer])
        #expect(!verification.isWatching(Self.thermometer), "judged once")
        verification.read(Self.thermometer, .double(30), at: Self.t(900))
        #expect(verification.takeVerdicts(before: Self.t(1000)).isEmpty)
    }

    @Test("an event heard after the read that found the change clears the suspicion")
    func lateEvent() {
        var verification = EventVerification(watching: [Self.thermometer, Self.switchOn])
        verification.read(Self.thermometer, .double(21), at: Self.t(0))
        verification.read(Self.thermometer, .double(22), at: Self.t(300))
        verification.heard(Self.thermometer, .double(22))
        verification.heard(Self.switchOn, .bool(true))
        verification.read(Self.switchOn, .bool(true), at: Self.t(300))
        #expect(verification.takeVerdicts(before: Self.t(400)).isEmpty)
        #expect(verification.isWatching(Self.thermometer))
    }

    @Test("this controller's writes, unwatched characteristics and the first value read are no missing event")
    func noFalseVerdicts() {
        var verification = EventVerification(watching: [Self.switchOn])
        verification.read(Self.switchOn, .bool(false), at: Self.t(0))
        verification.forget(Self.switchOn)
        verification.read(Self.switchOn, .bool(true), at: Self.t(1))
        verification.read(Self.thermometer, .double(1), at: Self.t(1))
        verification.read(Self.thermometer, .double(2), at: Self.t(2))
        #expect(verification.takeVerdicts(before: Self.t(100)).isEmpty)
        verification.read(Self.switchOn, .bool(false), at: Self.t(200))
        verification.forget(Self.switchOn)
        #expect(verification.takeVerdicts(before: Self.t(300)).isEmpty, "a write after the read clears it")
    }
}
