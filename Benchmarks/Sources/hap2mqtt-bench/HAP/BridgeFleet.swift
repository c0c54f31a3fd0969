import Foundation
import HAP2MQTTTesting
import HAPController
import JSON
import Logging
import SystemSupport

/// The HAP-python bridges of the scale and peer scenarios, started in parallel (each builds its
/// accessories for a second or more), and a state directory in which hap2mqtt's controller has paired with
/// every one of them; each run of the gateway gets a copy of it, so pair-setup is never timed.
final class BridgeFleet: Sendable {
    let bridges: [HAPPythonAccessory]
    /// `controller.json` and one pairing file per bridge.
    let pairings: URL
    /// hap2mqtt's pairing with each bridge, in the order of `bridges`.
    let records: [Pairing]
    private let controller: HAPController

    private init(bridges: [HAPPythonAccessory], pairings: URL, records: [Pairing], controller: HAPController) {
        self.bridges = bridges
        self.pairings = pairings
        self.records = records
        self.controller = controller
    }

    /// Starts `count` bridges of `lights` lights each and pairs with all of them.
    /// - Throws: why a bridge did not start or pair; the bridges that did are stopped first.
    static func start(count: Int, lights: Int, python: String) async throws -> BridgeFleet {
        try await start(lights: Array(repeating: lights, count: count), python: python)
    }

    /// Starts one bridge per element of `lights`, of that many lights, and pairs with all of them.
    /// - Throws: why a bridge did not start or pair; the bridges that did are stopped first.
    static func start(lights: [Int], python: String) async throws -> BridgeFleet {
        let started = StartedBridges()
        let pairings = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hap2mqtt-bench-pairings-\(UUID().uuidString)")
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, count) in lights.enumerated() {
                    group.addTask {
                        await started.add(
                            index,
                            try await HAPPythonAccessory.start(lights: count, python: python, recordsWrites: false))
                    }
                }
                try await group.waitForAll()
            }
            let bridges = await started.inOrder
            let directory = StateDirectory(path: pairings.path)
            try directory.create()
            let controller = HAPController(stateDirectory: directory, logger: Logger(label: "hap"))
            let records = try await withThrowingTaskGroup(of: (Int, Pairing).self) { group in
                for (index, bridge) in bridges.enumerated() {
                    group.addTask {
                        let record = try await controller.pair(
                            host: "127.0.0.1", port: bridge.port, setupCode: try SetupCode(bridge.setupCode),
                            name: "Bridge \(index + 1)")
                        return (index, record)
                    }
                }
                var records: [Int: Pairing] = [:]
                for try await (index, record) in group { records[index] = record }
                return bridges.indices.compactMap { records[$0] }
            }
            return BridgeFleet(bridges: bridges, pairings: pairings, records: records, controller: controller)
        } catch {
            for bridge in await started.inOrder { await bridge.stop() }
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

    /// Adds a controller for aiohomekit to every bridge (over hap2mqtt's admin pairing) and writes
    /// aiohomekit's pairing file: a JSON object of alias -> pairing data, the alias being the bridge's
    /// pairing id (`AccessoryPairingID`).
    func writeAiohomekitPairings(to file: URL) async throws {
        var entries = JSONObject()
        for (bridge, record) in zip(bridges, records) {
            let client = try await controller.connect(to: record)
            let single = file.deletingLastPathComponent().appendingPathComponent("\(UUID().uuidString).json")
            try await AiohomekitSide.addPairing(over: client, port: bridge.port, file: single)
            await client.connection.close()
            entries[record.accessoryPairingID] = try JSONValue(parsing: Array(Data(contentsOf: single)))
            try? FileManager.default.removeItem(at: single)
        }
        try Data(JSONValue.object(entries).encoded()).write(to: file)
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
    private var all: [Int: HAPPythonAccessory] = [:]
    func add(_ index: Int, _ bridge: HAPPythonAccessory) { all[index] = bridge }
    /// The bridges started, in the order asked for.
    var inOrder: [HAPPythonAccessory] { all.keys.sorted().compactMap { all[$0] } }
}
