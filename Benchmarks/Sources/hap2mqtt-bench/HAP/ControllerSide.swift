import HAPController
import HomeModel

/// hap2mqtt's side of scenario 4: the operations through `HAPController` and `HAPClient`, the API the HAP
/// accessory provider uses, timed on the monotonic clock in µs. One session stays open for
/// `/accessories`, reads, writes and events; pair-verify opens connections of its own. Used from one task.
final class ControllerSide {
    private let controller: HAPController
    private let pairing: Pairing
    private let control: FixtureControl
    private let client: HAPClient
    private var events: AsyncStream<[HAPEventValue]>.Iterator
    private let id = HAPCharacteristicID(aid: HAPBenchTarget.aid, iid: HAPBenchTarget.iid)

    /// Opens the session.
    init(controller: HAPController, pairing: Pairing, controlPort: UInt16) async throws {
        self.controller = controller
        self.pairing = pairing
        control = FixtureControl(port: controlPort)
        client = try await controller.connect(to: pairing)
        events = client.events.makeAsyncIterator()
    }

    func close() async { await client.connection.close() }

    /// `n` samples of `operation`, in µs, and this process's CPU time per operation over them (see
    /// `HAPBlock`: for events less as many control-channel pings); `start` numbers the first (for the values
    /// written and set). The process holds nothing else busy meanwhile: the aiohomekit side waits in its
    /// own process, and the fixture prints nothing per write (`recordsWrites: false`).
    /// - Throws: `BenchmarkError.process` when a request fails or a block of events does not come within
    ///   10 s.
    func measure(_ operation: HAPOperations.Operation, _ n: Int, start: Int) async throws -> HAPBlock {
        let begin = ProcessCPU.micros()
        let samples = try await times(operation, n, start: start)
        var cpu = ProcessCPU.micros() - begin
        if operation == .event {
            let pings = ProcessCPU.micros()
            // Each as a child task, as `event` asks for each change, so that the subtraction also takes
            // away the task the harness makes per event.
            let control = self.control
            for _ in 0..<n {
                async let ping: Void = control.ping()
                try await ping
            }
            cpu -= ProcessCPU.micros() - pings
        }
        return HAPBlock(samples: samples, cpu: cpu / Double(n))
    }

    private func times(_ operation: HAPOperations.Operation, _ n: Int, start: Int) async throws -> [Double] {
        var samples: [Double] = []
        switch operation {
        case .pairVerify:
            for _ in 0..<n {
                let begin = Monotonic.now()
                let fresh = try await controller.connect(to: pairing)
                samples.append(Monotonic.micros(from: begin, to: Monotonic.now()))
                await fresh.connection.close()
            }
        case .accessories:
            for _ in 0..<n {
                let begin = Monotonic.now()
                let list = try await client.accessories()
                samples.append(Monotonic.micros(from: begin, to: Monotonic.now()))
                guard !list.accessories.isEmpty else {
                    throw BenchmarkError.process("GET /accessories listed no accessory")
                }
            }
        case .read:
            for _ in 0..<n {
                let begin = Monotonic.now()
                let answer = try await client.read([id])
                samples.append(Monotonic.micros(from: begin, to: Monotonic.now()))
                try check(answer[id]?.status, "read of \(id)")
            }
        case .write:
            for index in start..<(start + n) {
                let item = HAPCharacteristicWriteItem(id: id, value: .int(HAPBenchTarget.writeValue(index)))
                let begin = Monotonic.now()
                let answer = try await client.write([item])
                samples.append(Monotonic.micros(from: begin, to: Monotonic.now()))
                try check(answer[id]?.status, "write of \(id)")
            }
        case .event:
            // Subscribed only meanwhile, as the other side: a subscription left on would bring an event
            // for every write and event of the other controller.
            try check(try await client.subscribe([id])[id]?.status, "subscription to \(id)")
            // One time-out for the block, as aiohomekit's side has (`asyncio.timeout`): closing the connection
            // ends the event stream, so a lost event fails the run instead of hanging it.
            let connection = client.connection
            let watchdog = Task {
                try await Task.sleep(for: .seconds(10))
                await connection.close()
            }
            defer { watchdog.cancel() }
            for index in start..<(start + n) { samples.append(try await event(HAPBenchTarget.eventValue(index))) }
            try await client.subscribe([id], enable: false)
        }
        return samples
    }

    /// From the fixture changing the value (its CLOCK_MONOTONIC time stamp, taken just before the change,
    /// in the control channel's answer) to the event with that value coming out of the client's event
    /// stream (time-stamped on the same clock as the stream hands it over, as aiohomekit's side stamps its
    /// callback). The control channel's own time is in neither side.
    private func event(_ value: Int64) async throws -> Double {
        // Asked concurrently, so that the event is taken (and stamped) as it comes, as aiohomekit's callback
        // is called from its loop while its `control()` still waits for the answer.
        let control = self.control
        async let changed = control.setValue(
            accessory: HAPBenchTarget.accessory, characteristic: HAPBenchTarget.characteristic, value: value)
        var arrival: UInt64?
        while arrival == nil, let batch = await events.next() {
            let now = Monotonic.now()
            if batch.contains(where: { $0.id == id && $0.value?.int64Value == value }) { arrival = now }
        }
        let changedAt = try await changed
        guard let arrival else {
            throw BenchmarkError.process("no event with \(value) for \(id) within the block's 10 s")
        }
        return Monotonic.micros(from: changedAt, to: arrival)
    }

    /// `what` is made only for a failure: a string made per read or write was harness cost in hap2mqtt's
    /// CPU figure that aiohomekit's side does not have.
    private func check(_ status: HAPStatus?, _ what: @autoclosure () -> String) throws {
        guard let status, status.isSuccess else {
            throw BenchmarkError.process(
                "the bridge refused the \(what()): \(status.map { "HAP status \($0.rawValue)" } ?? "no result")")
        }
    }
}
