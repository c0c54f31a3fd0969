import Foundation
import HAP2MQTTTesting
import HomeStore

/// The child process of the `memory` scenario: `hap2mqtt-bench __memory-probe <broker url> <base>
/// <accessories>`. It reports its resident memory, runs a gateway over the benchmark home, and answers
/// commands on stdin, one per line:
/// - it prints `start <VmHWM kB>` before building anything, then `ready` when its gateway is connected;
/// - `publish`: the store starts, and the gateway publishes the home;
/// - `change`: every changing characteristic changes once;
/// - `report`: prints `peak <VmHWM kB>`, stops the gateway and exits.
enum MemoryProbe {
    static let subcommand = "__memory-probe"

    struct Report {
        var startKB: Int
        var peakKB: Int
    }

    /// Runs the child, drives it through publishing the home and one round of changes (watched by
    /// `subscriber`, subscribed to `<base>/#`), and returns what it reported.
    static func measure(brokerURL: String, base: String, home: BenchmarkHome, subscriber: BareClient) async throws
        -> Report
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        process.arguments = [subcommand, brokerURL, base, String(home.accessories.count)]
        // One malloc arena, as `hap2mqtt run` sets at its start (Sources/hap2mqtt/Process/MemoryTuning.swift).
        process.environment = ProcessInfo.processInfo.environment.merging(["MALLOC_ARENA_MAX": "1"]) { current, _ in
            current
        }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try ExternalTool.start(process)
        defer { if process.isRunning { process.terminate() } }
        var lines = LineChannel.lines(from: output.fileHandleForReading).makeAsyncIterator()
        func expectLine(_ prefix: String) async throws -> Int {
            guard let line = await lines.next(), line.hasPrefix(prefix + " "),
                let kB = Int(line.dropFirst(prefix.count + 1))
            else {
                throw BenchmarkError.process("the memory probe did not report \(prefix)")
            }
            return kB
        }
        let start = try await expectLine("start")
        guard await lines.next() == "ready" else {
            throw BenchmarkError.process("the memory probe did not start its gateway")
        }
        guard
            await subscriber.expect(
                TopicsExpectation(["\(base)/bridge/accessories"]), timeout: .seconds(120),
                start: {
                    input.fileHandleForWriting.write(Data("publish\n".utf8))
                }) != nil
        else {
            throw BenchmarkError.timedOut("the memory probe's gateway did not publish the home within 120 s")
        }
        let burst = StateBurstExpectation(base: base, count: home.changeable.count)
        guard
            await subscriber.expect(
                burst, timeout: .seconds(120),
                start: {
                    input.fileHandleForWriting.write(Data("change\n".utf8))
                }) != nil
        else {
            throw BenchmarkError.timedOut("the memory probe's changes did not arrive within 120 s")
        }
        input.fileHandleForWriting.write(Data("report\n".utf8))
        let peak = try await expectLine("peak")
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return Report(startKB: start, peakKB: peak)
    }

    /// The child's side.
    static func main(_ arguments: [String]) async {
        guard arguments.count == 3, let count = Int(arguments[2]) else {
            FileHandle.standardError.write(
                Data("usage: hap2mqtt-bench \(subcommand) <broker url> <base> <accessories>\n".utf8))
            exit(2)
        }
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        say("start \(ResidentMemory.current()?.peakKB ?? 0)")
        do {
            let home = BenchmarkHome(accessories: count)
            let rig = try await GatewayRig(brokerURL: arguments[0], base: arguments[1], accessories: home.accessories)
            say("ready")
            for await command in LineChannel.lines(from: FileHandle.standardInput) {
                switch command {
                case "publish":
                    await rig.store.start()
                case "change":
                    for n in 0..<home.changeable.count { rig.provider.send(.values([home.change(n)])) }
                case "report":
                    say("peak \(ResidentMemory.current()?.peakKB ?? 0)")
                    await rig.stop()
                    exit(0)
                default:
                    break
                }
            }
        } catch {
            FileHandle.standardError.write(Data("memory probe: \(error)\n".utf8))
            exit(1)
        }
    }
}
