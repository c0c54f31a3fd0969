import Foundation
import HAP2MQTTTesting
import HAPController
import Logging
import SystemSupport

/// The HAP-python bridges of scenario 5, started in parallel (each builds its accessories for a second or
/// more), and a state directory in which hap2mqtt's controller has paired with every one of them; each
/// run of the gateway gets a copy of it, so pair-setup is never timed.
final class BridgeFleet: Sendable {
    let bridges: [HAPPythonAccessory]
    /// `controller.json` and one pairing file per bridge.
    let pairings: URL

    private init(bridges: [HAPPythonAccessory], pairings: URL) {
        self.bridges = bridges
        self.pairings = pairings
    }

    /// Starts `count` bridges of `lights` lights each and pairs with all of them.
    /// - Throws: why a bridge did not start or pair; the bridges that did are stopped first.
    static func start(count: Int, lights: Int, python: String) async throws -> BridgeFleet {
        let started = StartedBridges()
        let pairings = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hap2mqtt-bench-pairings-\(UUID().uuidString)")
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        await started.add(try await HAPPythonAccessory.start(lights: lights, python: python))
                    }
                }
                try await group.waitForAll()
            }
            let bridges = await started.all
            let directory = StateDirectory(path: pairings.path)
            try directory.create()
            let controller = HAPController(stateDirectory: directory, logger: Logger(label: "hap"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, bridge) in bridges.enumerated() {
                    group.addTask {
                        _ = try await controller.pair(
                            host: "127.0.0.1", port: bridge.port, setupCode: try SetupCode(bridge.setupCode),
                            name: "Bridge \(index + 1)")
                    }
                }
                try await group.waitForAll()
            }
            return BridgeFleet(bridges: bridges, pairings: pairings)
        } catch {
            for bridge in await started.all { await bridge.stop() }
            try? FileManager.default.removeItem(at: pairings)
            throw error
        }
    }

    /// Copies the controller identity and the pairings into a gateway's state directory.
    func copyPairings(to stateDirectory: URL) throws {
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: pairings.path) {
            try FileManager.default.copyItem(
                at: pairings.appendingPathComponent(name), to: stateDirectory.appendingPathComponent(name))
        }
    }

    /// Stops every bridge (in parallel) and removes the pairings.
    func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for bridge in bridges { group.addTask { await bridge.stop() } }
        }
        try? FileManager.default.removeItem(at: pairings)
    }
}

/// The bridges started so far, for stopping them when another fails.
private actor StartedBridges {
    private(set) var all: [HAPPythonAccessory] = []
    func add(_ bridge: HAPPythonAccessory) { all.append(bridge) }
}
