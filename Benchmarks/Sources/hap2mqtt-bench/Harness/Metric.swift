/// A target a metric should meet, on the ratio gateway/baseline (or on the gateway's own figure when the
/// metric has no baseline).
struct Goal: Codable, Sendable {
    enum Comparison: String, Codable, Sendable {
        case atMost = "<="
        case atLeast = ">="
    }

    var statistic: Statistic
    var comparison: Comparison
    var limit: Double

    static func ratio(_ statistic: Statistic, atMost limit: Double) -> Goal {
        Goal(statistic: statistic, comparison: .atMost, limit: limit)
    }
    static func ratio(_ statistic: Statistic, atLeast limit: Double) -> Goal {
        Goal(statistic: statistic, comparison: .atLeast, limit: limit)
    }

    func isMet(by value: Double) -> Bool {
        switch comparison {
        case .atMost: value <= limit
        case .atLeast: value >= limit
        }
    }

    var text: String { "\(statistic.rawValue) \(comparison == .atMost ? "≤" : "≥") \(Table.number(limit))" }
}

/// One row group of a scenario's table: the gateway's samples, the baseline's samples measured the same
/// way in the same run, and their ratio gateway/baseline per statistic.
struct Metric: Codable, Sendable {
    /// What is measured, e.g. "delivery latency QoS 1".
    var name: String
    /// The samples' unit: "µs", "msg/s", "MB".
    var unit: String
    var gateway: Summary
    var baseline: Summary?
    /// Each statistic of `gateway` divided by the same of `baseline`.
    var ratio: Summary?
    var goals: [Goal]
    /// Whether every goal is met; nil without goals.
    var goalsMet: Bool?
    /// What the table calls the two sides, where they are not the gateway and its baseline (`hap`:
    /// hap2mqtt's HAP controller against aiohomekit); nil for `gateway` and `baseline`.
    var sides: [String]?

    init(
        name: String, unit: String, gateway: [Double], baseline: [Double]? = nil, goals: [Goal] = [],
        sides: [String]? = nil
    ) {
        self.name = name
        self.unit = unit
        self.sides = sides
        let summary = Summary(gateway)
        let base = baseline.map(Summary.init)
        let ratio = base.map { summary.dividedBy($0) }
        self.gateway = summary
        self.baseline = base
        self.ratio = ratio
        self.goals = goals
        let judged = ratio ?? summary
        self.goalsMet = goals.isEmpty ? nil : goals.allSatisfy { $0.isMet(by: judged[$0.statistic]) }
    }
}

/// What one scenario measured: its parameters in words, its metrics and notes (counts, caveats).
struct ScenarioResult: Codable, Sendable {
    var scenario: String
    var parameters: String
    var metrics: [Metric]
    var notes: [String]
    /// Wall-clock seconds the scenario took, setup included.
    var seconds: Double
}
