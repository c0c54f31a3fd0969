import Foundation

/// Prints a scenario's result as a fixed-width table: per metric a gateway row, a baseline row and a
/// ratio row (gateway/baseline for each column), with the goal and whether it is met.
enum Table {
    /// - Parameter judged: whether to say if the goals are met; a tiny run's figures mean nothing.
    static func render(_ result: ScenarioResult, judged: Bool = true) -> String {
        var lines = ["\(result.scenario): \(result.parameters) (\(number(result.seconds)) s)"]
        let nameWidth = max(24, (result.metrics.map(\.name.count).max() ?? 0) + 2)
        let sideWidth = max(9, (result.metrics.flatMap { $0.sides ?? [] }.map(\.count).max() ?? 0) + 1)
        func row(_ name: String, _ side: String, _ n: String, _ values: [Double], _ tail: String) -> String {
            let cells = values.map { pad(number($0), 10) }.joined(separator: " ")
            return "  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + side.padding(toLength: sideWidth, withPad: " ", startingAt: 0) + pad(n, 6) + " " + cells + "  " + tail
        }
        lines.append(
            "  " + "metric".padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + "side".padding(toLength: sideWidth, withPad: " ", startingAt: 0) + pad("n", 6) + " "
                + Statistic.allCases.map { pad($0.rawValue, 10) }.joined(separator: " ") + "  unit")
        for metric in result.metrics {
            let s = metric.gateway
            let sides = metric.sides ?? ["gateway", "baseline"]
            let verdict = metric.goalsMet.map { met in
                "goal " + metric.goals.map(\.text).joined(separator: ", ")
                    + (judged ? (met ? ": met" : ": MISSED") : ": not judged (tiny run)")
            }
            if let baseline = metric.baseline, let ratio = metric.ratio {
                lines.append(row(metric.name, sides[0], "\(s.n)", [s.median, s.p90, s.p99, s.max], metric.unit))
                lines.append(
                    row(
                        "", sides[1], "\(baseline.n)", [baseline.median, baseline.p90, baseline.p99, baseline.max],
                        metric.unit))
                lines.append(
                    row(
                        "", "ratio", "", [ratio.median, ratio.p90, ratio.p99, ratio.max], verdict ?? "gateway/baseline")
                )
            } else {
                lines.append(
                    row(
                        metric.name, sides[0], "\(s.n)", [s.median, s.p90, s.p99, s.max],
                        metric.unit + (verdict.map { "  \($0)" } ?? "")))
            }
        }
        for note in result.notes { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n")
    }

    /// Three significant digits at most below 100, whole numbers above.
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return "-" }
        let magnitude = abs(x)
        if magnitude >= 100 { return String(format: "%.0f", x) }
        if magnitude >= 10 { return String(format: "%.1f", x) }
        return String(format: "%.2f", x)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
