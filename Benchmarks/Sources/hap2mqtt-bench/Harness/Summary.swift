/// The statistics a table row shows for a set of samples: count, median, 90th and 99th percentile, and
/// maximum. Percentiles interpolate linearly between the two nearest ranks (numpy's default), so a
/// p99 of 5 samples lies between the two largest.
struct Summary: Codable, Sendable {
    var n: Int
    var median: Double
    var p90: Double
    var p99: Double
    var max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        n = sorted.count
        median = Summary.percentile(50, of: sorted)
        p90 = Summary.percentile(90, of: sorted)
        p99 = Summary.percentile(99, of: sorted)
        max = sorted.last ?? .nan
    }

    private init(n: Int, median: Double, p90: Double, p99: Double, max: Double) {
        self.n = n
        self.median = median
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }

    /// Each statistic of `self` divided by the same statistic of `other`.
    func dividedBy(_ other: Summary) -> Summary {
        Summary(n: n, median: median / other.median, p90: p90 / other.p90, p99: p99 / other.p99, max: max / other.max)
    }

    /// The value of a named statistic.
    subscript(statistic: Statistic) -> Double {
        switch statistic {
        case .median: median
        case .p90: p90
        case .p99: p99
        case .max: max
        }
    }

    static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        guard let first = sorted.first else { return .nan }
        guard sorted.count > 1 else { return first }
        let rank = p / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}

/// A column of the table.
enum Statistic: String, Codable, Sendable, CaseIterable {
    case median, p90, p99, max
}
