extension Duration {
    /// The duration in seconds, with its fraction (`2.5` for two and a half seconds): for time-outs in
    /// error texts and log lines, and for the C calls and protocols that count in seconds.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, the fraction of a millisecond dropped; `Int64.max` or `.min`
    /// for a duration beyond what that counts. Exact, unlike `inSeconds * 1000`.
    public var inMilliseconds: Int64 {
        let (milliseconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        let (sum, overflowAgain) = milliseconds.addingReportingOverflow(components.attoseconds / 1_000_000_000_000_000)
        guard !overflowAgain else { return components.seconds < 0 ? .min : .max }
        return sum
    }
}
