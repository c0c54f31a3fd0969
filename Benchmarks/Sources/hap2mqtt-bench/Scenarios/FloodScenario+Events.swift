import Foundation
import HAP2MQTTTesting
import MQTT

/// An accessory that sends events as fast as it can. The HAP-python fixture changes one
/// light's brightness in a loop (`floodEvents`); meanwhile a `/set` of another light is timed from its
/// publish to its result.
extension FloodScenario {
    /// What the event flood came to.
    struct EventFlood {
        /// Changes the accessory made (each an event value).
        var events: Int
        /// The `/set` round trips during the flood, in ms.
        var roundTrips: [Double]
        /// `VmHWM` of the gateway once the flood ended, in MB.
        var peakMB: Double
    }

    /// Floods `Light 1`'s brightness for `duration` and sends a `/set` of `light_2`'s `on` every second
    /// meanwhile, each awaited on its result topic.
    func eventFlood(
        bridge: HAPPythonAccessory, broker: MosquittoBroker, base: String, pid: Int32, duration: Duration
    ) async throws -> EventFlood {
        let result = "\(base)/light_2/lightbulb/on/set/result"
        let client = try await MQTTTestClient.connect(to: broker, subscribe: [result])
        try await bridge.floodEvents(
            accessory: "Light 1", characteristic: "Brightness", seconds: Double(duration.components.seconds))
        var roundTrips: [Double] = []
        var on = true
        while try await bridge.floodStatus().running || roundTrips.isEmpty {
            let answered = await client.messages(on: result).count
            let sent = Monotonic.now()
            try await client.publish("\(base)/light_2/lightbulb/on/set", on ? "true" : "false")
            let deadline = ContinuousClock.now + .seconds(30)
            while await client.messages(on: result).count == answered, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            guard await client.messages(on: result).count > answered else {
                throw BenchmarkError.timedOut("a /set during the event flood got no result within 30 s")
            }
            roundTrips.append(Monotonic.micros(from: sent, to: Monotonic.now()) / 1000)
            on.toggle()
            try await Task.sleep(for: .seconds(1))
        }
        await client.disconnect()
        let events = try await bridge.floodStatus().events
        guard let memory = ResidentMemory.current(pid: pid) else {
            throw BenchmarkError.process("hap2mqtt run exited during the event flood")
        }
        return EventFlood(events: events, roundTrips: roundTrips, peakMB: Double(memory.peakKB) / 1024)
    }
}
