/// The command line: `hap2mqtt-bench [scenario ...] [--size tiny|full] [--runs N] [--json FILE] [--list]`.
struct Options: Sendable {
    var scenarios: [any BenchmarkScenario] = ScenarioRegistry.all
    var size = RunSize.full
    var runs: Int?
    var jsonFile: String?
    var list = false

    static let usage = """
        usage: hap2mqtt-bench [scenario ...] [--size tiny|full] [--runs N] [--json FILE] [--list]
          scenario     one or more of the names --list shows; all of them when none is given
          --size       full (default) for real figures; tiny runs everything in a few seconds (CI)
          --runs N     repeat each scenario's measurement N times (default: per scenario)
          --json FILE  also write the results as JSON
          --list       list the scenarios and exit
        """

    /// - Throws: `BenchmarkError.usage` for an unknown scenario or option, or a missing value.
    init(_ arguments: [String]) throws {
        var names: [String] = []
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let next = rest.popFirst() else {
                throw BenchmarkError.usage("\(option) needs a value\n\(Options.usage)")
            }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--size":
                let text = try value(argument)
                guard let size = RunSize(rawValue: text) else {
                    throw BenchmarkError.usage("--size is tiny or full, not \(text)")
                }
                self.size = size
            case "--runs":
                let text = try value(argument)
                guard let runs = Int(text), runs > 0 else {
                    throw BenchmarkError.usage("--runs needs a positive number, not \(text)")
                }
                self.runs = runs
            case "--json":
                jsonFile = try value(argument)
            case "--list":
                list = true
            case "-h", "--help":
                throw BenchmarkError.usage(Options.usage)
            default:
                guard !argument.hasPrefix("-") else {
                    throw BenchmarkError.usage("unknown option \(argument)\n\(Options.usage)")
                }
                names.append(argument)
            }
        }
        if !names.isEmpty {
            scenarios = try names.map { name in
                guard let scenario = ScenarioRegistry.named(name) else {
                    let known = ScenarioRegistry.all.map(\.name).joined(separator: ", ")
                    throw BenchmarkError.usage("unknown scenario \(name); known: \(known)")
                }
                return scenario
            }
        }
    }
}
