import Foundation
import HAP2MQTTTesting
import HAPController

/// aiohomekit's side of scenario 4: `Benchmarks/hap/aiohomekit_bench.py`, run once per run as a child
/// process, on a pairing of its own that hap2mqtt (the admin that made pair-setup) added for it.
enum AiohomekitSide {
    static let script = "Benchmarks/hap/aiohomekit_bench.py"

    /// Adds a controller for aiohomekit over `client` (hap2mqtt's admin session: Add Pairing, HAP spec
    /// §5.10) with a fresh Ed25519 key, and writes aiohomekit's pairing data for it to `file`.
    static func addPairing(over client: HAPClient, port: UInt16, file: URL) async throws {
        var generator = SystemRandomNumberGenerator()
        let seed = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let pairingID = UUID().uuidString
        let identity = try ControllerIdentity(pairingID: pairingID, seed: seed)
        try await client.addPairing(pairingID: pairingID, publicKey: identity.publicKey, admin: false)
        // The keys aiohomekit's pair-setup would have saved (aiohomekit/protocol/__init__.py, perform_pair_setup_part2).
        let data: [String: Any] = [
            "AccessoryPairingID": client.pairing.accessoryPairingID,
            "AccessoryLTPK": hex(client.pairing.accessoryLTPK),
            "iOSPairingId": pairingID,
            "iOSDeviceLTSK": hex(seed),
            "iOSDeviceLTPK": hex(identity.publicKey),
            "AccessoryIP": "127.0.0.1",
            "AccessoryIPs": ["127.0.0.1"],
            "AccessoryPort": Int(port),
            "Connection": "IP",
        ]
        try JSONSerialization.data(withJSONObject: data).write(to: file)
    }

    /// One run of the script: its samples (ms) in µs, and the aiohomekit version it ran.
    /// - Throws: `BenchmarkError.process` with the script's message when it fails.
    static func measure(
        python: String, port: UInt16, controlPort: UInt16, pairingFile: URL, samples: Int
    ) async throws -> (operations: HAPOperations, version: String) {
        let arguments = [
            BenchPython.path(script), "--port", String(port), "--pairing-file", pairingFile.path,
            "--control-port", String(controlPort), "--samples", String(samples),
            "--read", "\(HAPBenchTarget.aid).\(HAPBenchTarget.iid)", "--write", "\(HAPBenchTarget.aid).\(HAPBenchTarget.iid)",
            "--values", HAPBenchTarget.writeValues.map(String.init).joined(separator: ","),
            "--event", "\(HAPBenchTarget.accessory)/\(HAPBenchTarget.characteristic)@\(HAPBenchTarget.aid).\(HAPBenchTarget.iid)",
        ]
        let output: String
        do {
            output = try await ExternalTool.run(python, arguments)
        } catch {
            throw BenchmarkError.process("the aiohomekit side failed: \(error)")
        }
        struct Report: Decodable {
            var aiohomekit: String
            var samples: [String: [Double]]
        }
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
        else { throw BenchmarkError.process("the aiohomekit side printed no report: \(output.suffix(500))") }
        var result = HAPOperations()
        for operation in HAPOperations.Operation.allCases {
            guard let ms = report.samples[operation.rawValue] else {
                throw BenchmarkError.process("the aiohomekit side reported no \(operation.rawValue) samples")
            }
            result[operation] = ms.map { $0 * 1_000 }
        }
        return (result, report.aiohomekit)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
