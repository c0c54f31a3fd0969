import Foundation
import HAP2MQTTTesting
import HAPController
import Logging
import SystemSupport

/// Scenario 4: hap2mqtt's HAP controller against aiohomekit 4.0.1, the same operations on one HAP-python
/// 5.0.0 bridge on loopback (event coalescing off): pair-verify, `GET /accessories` with parsing, single
/// reads, single writes, event latency. hap2mqtt pairs (pair-setup, untimed) and adds aiohomekit's own
/// pairing; then the two take turns a block of samples at a time (a twentieth of each operation's), so
/// that both meet the same moments of a busy machine.
struct HAPScenario: BenchmarkScenario {
    let name = "hap"
    let summary =
        "HAP controller against aiohomekit 4.0.1 on a HAP-python bridge: pair-verify, /accessories, 200 reads, 200 writes, 200 events; time and own CPU per operation"

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let samples = context.pick(full: 200, tiny: 10)
        let runs = context.runs ?? context.pick(full: 3, tiny: 1)
        context.progress("Python venv for HAP-python and aiohomekit")
        let python = try await BenchPython.ensure()
        let accessory = try await HAPPythonAccessory.start(python: python, recordsWrites: false)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hap2mqtt-bench-hap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let result = try await measure(
                context, accessory: accessory, python: python, folder: folder, samples: samples, runs: runs)
            await accessory.stop()
            return ScenarioResult(
                scenario: name,
                parameters:
                    "\(samples) reads, writes and events and \(HAPOperations.count(.pairVerify, samples: samples)) pair-verifies and /accessories "
                    + "per run and side, runs: \(runs), one HAP-python bridge of 6 accessories, the sides taking turns every \(HAPOperations.block(.read, samples: samples)) samples",
                metrics: HAPOperations.Operation.allCases.map { operation in
                    Metric(
                        name: operation.title, unit: "µs", gateway: result.ours[operation],
                        baseline: result.theirs[operation], sides: ["hap2mqtt", "aiohomekit"])
                }
                    + HAPOperations.Operation.allCases.map { operation in
                        Metric(
                            name: "CPU per \(operation.cpuTitle)", unit: "µs", gateway: result.ours.cpu(operation),
                            baseline: result.theirs.cpu(operation), sides: ["hap2mqtt", "aiohomekit"])
                    },
                notes: [
                    "hap2mqtt: HAPController.connect and HAPClient (the API its HAP accessory provider uses), in this process",
                    "aiohomekit \(result.version): \(AiohomekitSide.script) in a child process, IpPairing on a pairing of its own",
                    "pair-verify: TCP connect and pair-verify until the session is encrypted; /accessories: the request and the accessory model built from it",
                    "event latency: from the fixture changing Light/Brightness (its CLOCK_MONOTONIC time stamp) to the event with that value reaching the controller's API (same clock)",
                    "CPU per operation: the controller's own process (getrusage, user + system, all threads; not the bridge's) over each block, per operation, one figure per block; events less as many control-channel pings",
                    "ratio: hap2mqtt/aiohomekit; below 1, hap2mqtt is faster",
                ],
                seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
        } catch {
            await accessory.stop()
            throw error
        }
    }

    private func measure(
        _ context: BenchmarkContext, accessory: HAPPythonAccessory, python: String, folder: URL, samples: Int, runs: Int
    ) async throws -> (ours: HAPOperations, theirs: HAPOperations, version: String) {
        let directory = StateDirectory(path: folder.path)
        try directory.create()
        let controller = HAPController(stateDirectory: directory, logger: Logger(label: "hap"))
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode), name: "bench")
        let pairingFile = folder.appendingPathComponent("aiohomekit-pairing.json")
        let admin = try await controller.connect(to: pairing)
        try await AiohomekitSide.addPairing(over: admin, port: accessory.port, file: pairingFile)
        await admin.connection.close()
        guard let controlPort = accessory.controlPort else {
            throw BenchmarkError.process("the HAP-python fixture has no control channel")
        }

        let ours = try await ControllerSide(controller: controller, pairing: pairing, controlPort: controlPort)
        let theirs: AiohomekitSide
        do {
            theirs = try await AiohomekitSide(
                python: python, port: accessory.port, controlPort: controlPort, pairingFile: pairingFile)
        } catch {
            await ours.close()
            throw error
        }
        var result = (ours: HAPOperations(), theirs: HAPOperations(), version: theirs.version)
        do {
            for run in 1...runs {
                for operation in HAPOperations.Operation.allCases {
                    let total = HAPOperations.count(operation, samples: samples)
                    let block = HAPOperations.block(operation, samples: samples)
                    var index = (run - 1) * 2 * total
                    for turn in 0..<((total + block - 1) / block) {
                        let n = min(block, total - turn * block)
                        // Turn about within each pair of blocks, so that neither side always goes first.
                        for side in turn % 2 == 0 ? [0, 1] : [1, 0] {
                            if side == 0 {
                                result.ours.record(operation, try await ours.measure(operation, n, start: index))
                            } else {
                                result.theirs.record(operation, try await theirs.measure(operation, n, start: index))
                            }
                            index += n
                        }
                    }
                }
                context.progress(
                    "run \(run)/\(runs): read median \(Table.number(Summary(result.ours[.read]).median)) µs (hap2mqtt), "
                        + "\(Table.number(Summary(result.theirs[.read]).median)) µs (aiohomekit)")
            }
        } catch {
            await ours.close()
            theirs.stop()
            throw error
        }
        await ours.close()
        theirs.stop()
        return result
    }
}
