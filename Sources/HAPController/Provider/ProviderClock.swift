/// Where `HAPAccessoryProvider` takes the time and waits from: the system's continuous clock in the
/// program, a clock the tests move by hand where a rule depends on how much time passed.
protocol ProviderClock: Sendable {
    /// The time now.
    var now: ContinuousClock.Instant { get }
    /// Waits `duration`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(for duration: Duration) async throws
}

/// The system's continuous clock (it keeps counting while the machine sleeps, so a back-off or a grace
/// time that spans a suspend is over when it wakes).
struct SystemProviderClock: ProviderClock {
    var now: ContinuousClock.Instant { .now }

    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
