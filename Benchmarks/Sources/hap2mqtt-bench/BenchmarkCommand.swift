import Foundation

/// `hap2mqtt-bench`: runs the scenarios and prints one table each (Benchmarks/README.md).
@main
struct BenchmarkCommand {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == MemoryProbe.subcommand {
            await MemoryProbe.main(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == DiscoveryScenario.subcommand {
            await DiscoveryScenario.runInside(Array(arguments.dropFirst()))
            return
        }
        do {
            let options = try Options(arguments)
            if options.list {
                for scenario in ScenarioRegistry.all {
                    print("\(scenario.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(scenario.summary)")
                }
                return
            }
            try await run(options)
        } catch {
            FileHandle.standardError.write(Data("hap2mqtt-bench: \(error)\n".utf8))
            exit(error is BenchmarkError ? 2 : 1)
        }
    }

    private static func run(_ options: Options) async throws {
        let info = await RunInfo.collect(size: options.size)
        print("hap2mqtt-bench \(info.size.rawValue) run, \(info.date), commit \(info.commit)")
        print("machine: \(info.machine)\n")
        let context = BenchmarkContext(size: options.size, runs: options.runs)
        var results: [ScenarioResult] = []
        for scenario in options.scenarios {
            FileHandle.standardError.write(Data("\(scenario.name): \(scenario.summary)\n".utf8))
            let result = try await scenario.run(context)
            results.append(result)
            print(Table.render(result, judged: options.size == .full) + "\n")
        }
        if let file = options.jsonFile {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            try encoder.encode(BenchmarkReport(run: info, results: results)).write(to: URL(fileURLWithPath: file))
        }
    }
}
