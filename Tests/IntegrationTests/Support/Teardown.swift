import HAP2MQTTTesting
import Testing

/// What a set-up has started, to stop in reverse order once it is done or a start failed.
final class Teardown {
    private var stops: [() async -> Void] = []

    /// Remembers how to stop something just started.
    func add(_ stop: @escaping () async -> Void) { stops.append(stop) }

    /// Remembers to stop the gateway, which must then exit cleanly (status 0) if it was running.
    func add(_ gateway: GatewayProcess) {
        add {
            let running = gateway.isRunning
            await gateway.stop()
            if running {
                #expect(gateway.terminationStatus == 0, "hap2mqtt did not stop cleanly:\n\(gateway.log.suffix(3000))")
            }
        }
    }

    /// Stops everything, the last started first.
    func run() async {
        for stop in stops.reversed() { await stop() }
        stops = []
    }

    /// Runs `body` with a teardown, and runs the teardown afterwards, also when `body` throws.
    static func around<T>(_ body: (Teardown) async throws -> T) async throws -> T {
        let teardown = Teardown()
        do {
            let result = try await body(teardown)
            await teardown.run()
            return result
        } catch {
            await teardown.run()
            throw error
        }
    }
}
