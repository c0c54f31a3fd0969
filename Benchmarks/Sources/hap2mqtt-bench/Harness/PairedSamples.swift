/// Gateway and baseline samples taken in alternation, so both sides see the same moments of a noisy
/// machine.
extension BenchmarkContext {
    /// Samples before the measured ones, on both sides, to warm caches and thread pools.
    static let warmUp = 20

    /// Calls `sample` for `warmUp + count` indices and keeps the last `count` pairs, reporting progress.
    func pairedSamples(
        _ count: Int, _ sample: (Int) async throws -> (gateway: Double, baseline: Double)
    ) async throws -> (gateway: [Double], baseline: [Double]) {
        var gateway: [Double] = []
        var baseline: [Double] = []
        for index in 0..<(BenchmarkContext.warmUp + count) {
            let (g, b) = try await sample(index)
            if index >= BenchmarkContext.warmUp {
                gateway.append(g)
                baseline.append(b)
            }
            if index > 0 && index % 250 == 0 { progress("\(index) samples") }
        }
        return (gateway, baseline)
    }
}
