import HAP2MQTTTesting
import HAPController
import HomeModel
import Synchronization
import Testing

/// The connection's behaviour with a real HAP-python accessory: events interleaved with answers, and the
/// accessory going away mid-session.
@Suite("HAP connection with HAP-python")
struct HAPConnectionFixtureTests {
    @Test("while the accessory sends events rapidly, every read still gets its own answer")
    func eventsDuringReads() async throws {
        let fixture = try await PairedFixture.start()
        let client = try await fixture.client()
        let list = try await client.accessories()
        let brightness = try characteristicID(list, accessory: "Light", "Brightness")
        let hue = try characteristicID(list, accessory: "Light", "Hue")
        let temperature = try characteristicID(list, accessory: "Temperature", "CurrentTemperature")
        let target = try characteristicID(list, accessory: "Thermostat", "TargetTemperature")
        let name = try characteristicID(list, accessory: "Switch", "Name")
        try await fixture.accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(21.5))
        try await fixture.accessory.setValue(
            accessory: "Thermostat", characteristic: "TargetTemperature", value: .float(23))
        try await client.subscribe([brightness, hue])

        let changes = Changes(accessory: fixture.accessory)
        // Read until all changes were made (and at least 150 times), so that events arrive between them.
        var answered = 0
        var round = 0
        while round < 150 || !changes.isFinished {
            defer { round += 1 }
            let (id, expected): (HAPCharacteristicID, CharacteristicValue) = [
                (temperature, .float(21.5)), (target, .float(23)), (name, .string("Switch")),
            ][round % 3]
            let results = try await client.read([id])
            #expect(results.keys.sorted() == [id], "round \(round)")
            #expect(results[id]?.status == .success)
            #expect(try results[id]?.value(format: expected.format) == expected, "round \(round)")
            answered += 1
        }
        try await changes.task.value
        var events = client.events.makeAsyncIterator()
        var seen = 0
        while seen < 100, let batch = await events.next() { seen += batch.count }
        #expect(seen == 100, "every change arrived as an event")
        #expect(answered == round)
        await client.connection.close()
        await fixture.stop()
    }

    @Test("when the accessory dies mid-session, the pending request fails promptly and the close is reported")
    func accessoryKilled() async throws {
        let fixture = try await PairedFixture.start()
        let client = try await fixture.client()
        let on = try characteristicID(try await client.accessories(), accessory: "Switch", "On")
        let connection = client.connection
        let closed = Task { await connection.waitUntilClosed() }
        let reads = Task { () -> (any Error)? in
            while true {
                do { _ = try await client.read([on]) } catch { return error }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        await fixture.accessory.kill()
        let clock = ContinuousClock()
        let killed = clock.now
        let error = await reads.value
        let reason = await closed.value
        #expect(clock.now - killed < .seconds(5), "the failure came promptly")
        // The read in flight fails with the reason; one that began after the end, as not sent.
        #expect(
            [reason, .notSent(endedBy: reason)].contains(error as? HAPConnectionError),
            "\(String(describing: error))")
        #expect([.connectionLost(.closedByPeer), .connectionLost(.reset)].contains(reason))
        #expect(await connection.closeReason == reason)
        var events = client.events.makeAsyncIterator()
        #expect(await events.next() == nil)
        await #expect(throws: HAPConnectionError.self) { try await client.read([on]) }
        await fixture.stop()
    }
}

/// 100 value changes made from the accessory's side, one after another, in the background.
final class Changes: Sendable {
    let task: Task<Void, any Error>
    private let done: Flag

    /// Set once, read from any task.
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    init(accessory: HAPPythonAccessory) {
        let done = Flag()
        self.done = done
        task = Task {
            defer { done.set() }
            for step in 1...100 {
                try await accessory.setValue(
                    accessory: "Light", characteristic: step.isMultiple(of: 2) ? "Brightness" : "Hue",
                    value: .int(Int64(step)))
            }
        }
    }

    var isFinished: Bool { done.isSet }
}

extension CharacteristicValue {
    /// The HAP format a value of this kind reads back as, for comparing reads with expectations.
    var format: CharacteristicFormat {
        switch self {
        case .bool: return .bool
        case .int, .uint: return .int
        case .float: return .float
        case .string: return .string
        case .data: return .data
        case .json: return .dictionary
        }
    }
}
