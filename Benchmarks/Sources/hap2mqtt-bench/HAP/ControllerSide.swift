import HAP2MQTTTesting
import HAPController
import HomeModel

/// hap2mqtt's side of scenario 4: the operations through `HAPController` and `HAPClient`, the API the HAP
/// accessory provider uses, timed on the monotonic clock in µs.
enum ControllerSide {
    /// One run: `fewer(samples)` pair-verifies and `/accessories` fetches, then `samples` reads, writes and
    /// events on one connection, closed at the end (so the other controller's run has the bridge alone).
    /// - Throws: `BenchmarkError.process` when a request fails or an event does not come within 10 s.
    static func measure(
        controller: HAPController, pairing: Pairing, accessory: HAPPythonAccessory, samples: Int
    ) async throws -> HAPOperations {
        var result = HAPOperations()
        for _ in 0..<HAPOperations.fewer(samples) {
            let start = Monotonic.now()
            let client = try await controller.connect(to: pairing)
            result[.pairVerify].append(Monotonic.micros(from: start, to: Monotonic.now()))
            await client.connection.close()
        }

        let client = try await controller.connect(to: pairing)
        do {
            try await session(client, accessory: accessory, samples: samples, into: &result)
            await client.connection.close()
        } catch {
            await client.connection.close()
            throw error
        }
        return result
    }

    /// `/accessories`, reads, writes and events on one connection.
    private static func session(
        _ client: HAPClient, accessory: HAPPythonAccessory, samples: Int, into result: inout HAPOperations
    ) async throws {
        let id = HAPCharacteristicID(aid: HAPBenchTarget.aid, iid: HAPBenchTarget.iid)
        for _ in 0..<HAPOperations.fewer(samples) {
            let start = Monotonic.now()
            let list = try await client.accessories()
            result[.accessories].append(Monotonic.micros(from: start, to: Monotonic.now()))
            guard !list.accessories.isEmpty else { throw BenchmarkError.process("GET /accessories listed no accessory") }
        }
        for _ in 0..<samples {
            let start = Monotonic.now()
            let answer = try await client.read([id])
            result[.read].append(Monotonic.micros(from: start, to: Monotonic.now()))
            try check(answer[id]?.status, "read of \(id)")
        }
        for index in 0..<samples {
            let item = HAPCharacteristicWriteItem(id: id, value: .int(HAPBenchTarget.writeValues[index % HAPBenchTarget.writeValues.count]))
            let start = Monotonic.now()
            let answer = try await client.write([item])
            result[.write].append(Monotonic.micros(from: start, to: Monotonic.now()))
            try check(answer[id]?.status, "write of \(id)")
        }
        result[.event] = try await events(client: client, id: id, accessory: accessory, samples: samples)
    }

    /// From the control channel's `set_value` to the event with that value coming out of the client's
    /// event stream (time-stamped as the stream hands it over, as aiohomekit's side stamps its callback).
    private static func events(
        client: HAPClient, id: HAPCharacteristicID, accessory: HAPPythonAccessory, samples: Int
    ) async throws -> [Double] {
        try check(try await client.subscribe([id])[id]?.status, "subscription to \(id)")
        var events = client.events.makeAsyncIterator()
        var latencies: [Double] = []
        for index in 0..<samples {
            let value = HAPBenchTarget.eventValue(index)
            // Closing the connection ends the event stream, so a lost event fails the run instead of hanging it.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(10))
                await client.connection.close()
            }
            let start = Monotonic.now()
            async let answer: Void = accessory.setValue(
                accessory: HAPBenchTarget.accessory, characteristic: HAPBenchTarget.characteristic, value: .int(value))
            var arrival: UInt64?
            while arrival == nil, let batch = await events.next() {
                let now = Monotonic.now()
                if batch.contains(where: { $0.id == id && $0.value?.int64Value == value }) { arrival = now }
            }
            watchdog.cancel()
            try await answer
            guard let arrival else { throw BenchmarkError.process("no event with \(value) for \(id) within 10 s") }
            latencies.append(Monotonic.micros(from: start, to: arrival))
        }
        return latencies
    }

    private static func check(_ status: HAPStatus?, _ what: String) throws {
        guard let status, status.isSuccess else {
            throw BenchmarkError.process("the bridge refused the \(what): \(status.map { "HAP status \($0.rawValue)" } ?? "no result")")
        }
    }
}
