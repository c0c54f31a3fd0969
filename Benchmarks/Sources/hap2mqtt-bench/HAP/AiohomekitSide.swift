import Foundation
import HAP2MQTTTesting
import HAPController
import JSON

/// aiohomekit's side of scenario 4: `Benchmarks/hap/aiohomekit_bench.py --serve` as a child process, on a
/// pairing of its own that hap2mqtt (the admin that made pair-setup) added for it, taking one operation
/// at a time over stdin. Used from one task.
final class AiohomekitSide {
    static let script = "Benchmarks/hap/aiohomekit_bench.py"

    private let process: Process
    private let input: FileHandle
    private var lines: AsyncStream<String>.Iterator
    /// The aiohomekit version the script runs.
    private(set) var version = "?"

    /// Starts the script and waits until its session is open.
    /// - Throws: `BenchmarkError.process` when it cannot start or does not say it is ready.
    init(python: String, port: UInt16, controlPort: UInt16, pairingFile: URL) async throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            BenchPython.path(Self.script), "--serve", "--port", String(port), "--pairing-file", pairingFile.path,
            "--control-port", String(controlPort),
            "--read", "\(HAPBenchTarget.aid).\(HAPBenchTarget.iid)", "--write",
            "\(HAPBenchTarget.aid).\(HAPBenchTarget.iid)",
            "--values", HAPBenchTarget.writeValues.map(String.init).joined(separator: ","),
            "--event",
            "\(HAPBenchTarget.accessory)/\(HAPBenchTarget.characteristic)@\(HAPBenchTarget.aid).\(HAPBenchTarget.iid)",
        ]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        input = stdin.fileHandleForWriting
        lines = LineChannel.lines(from: stdout.fileHandleForReading).makeAsyncIterator()
        do {
            try ExternalTool.start(process)
        } catch {
            throw BenchmarkError.process("cannot run the aiohomekit side: \(error)")
        }
        struct Ready: Decodable { var aiohomekit: String }
        guard let line = await lines.next(), let ready = try? JSONDecoder().decode(Ready.self, from: Data(line.utf8))
        else {
            stop()
            throw BenchmarkError.process("the aiohomekit side did not start (its error is above)")
        }
        version = ready.aiohomekit
    }

    /// `n` samples of `operation` in µs and the script's own CPU time per operation (it measures both; see
    /// `HAPBlock`); `start` numbers the first (for the values written and set).
    /// - Throws: `BenchmarkError.process` when the script fails (its error goes to stderr).
    func measure(_ operation: HAPOperations.Operation, _ n: Int, start: Int) async throws -> HAPBlock {
        let command = #"{"op":"\#(operation.rawValue)","n":\#(n),"start":\#(start)}"# + "\n"
        input.write(Data(command.utf8))
        struct Answer: Decodable {
            var samples: [Double]
            var cpu: Double
        }
        guard let line = await lines.next(), let answer = try? JSONDecoder().decode(Answer.self, from: Data(line.utf8))
        else {
            throw BenchmarkError.process("the aiohomekit side failed on \(operation.rawValue) (its error is above)")
        }
        return HAPBlock(samples: answer.samples.map { $0 * 1_000 }, cpu: answer.cpu)
    }

    /// Asks the script to close its session and end; kills it if it does not within 5 s.
    func stop() {
        try? input.write(contentsOf: Data(#"{"op":"quit"}"#.utf8 + [0x0A]))
        try? input.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
    }

    /// Adds a controller for aiohomekit over `client` (hap2mqtt's admin session: Add Pairing, HAP spec
    /// §5.10) with a fresh Ed25519 key, and writes aiohomekit's pairing data for it to `file`.
    static func addPairing(over client: HAPClient, port: UInt16, file: URL) async throws {
        var generator = SystemRandomNumberGenerator()
        let seed = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let pairingID = UUID().uuidString
        let identity = try ControllerIdentity(pairingID: pairingID, seed: seed)
        try await client.addPairing(pairingID: pairingID, publicKey: identity.publicKey, admin: false)
        // The keys aiohomekit's pair-setup would have saved (aiohomekit/protocol/__init__.py, perform_pair_setup_part2).
        let data: JSONValue = [
            "AccessoryPairingID": .string(client.pairing.accessoryPairingID),
            "AccessoryLTPK": .string(hex(client.pairing.accessoryLTPK)),
            "iOSPairingId": .string(pairingID),
            "iOSDeviceLTSK": .string(hex(seed)),
            "iOSDeviceLTPK": .string(hex(identity.publicKey)),
            "AccessoryIP": "127.0.0.1",
            "AccessoryIPs": ["127.0.0.1"],
            "AccessoryPort": JSONValue(Int(port)),
            "Connection": "IP",
        ]
        try Data(data.encoded()).write(to: file)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
