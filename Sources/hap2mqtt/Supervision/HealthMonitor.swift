import Foundation
import Logging
import SystemSupport

/// Watches the running gateway and reports its state to the two outside watchers: systemd (through
/// `SystemdNotifier`) and the `HEALTHCHECK` of the Docker image (through `health.json`, `HealthStatus`).
///
/// Every `tick` it samples the gateway (`sample`: connected to the broker, home synced). Sampling awaits
/// the gateway on the home store's executor, so a tick that completes shows the main loops answer: only
/// then does it send `WATCHDOG=1` (when systemd set a watchdog and the ping is due). The first sample that
/// is connected and synced sends `READY=1`. `health.json` is written when the sample changes and at
/// least every `HealthStatus.refreshInterval`, without fsync (`StateDirectory.write(durable:)`).
actor HealthMonitor {
    /// The gateway's state at one moment.
    struct Sample: Sendable, Hashable {
        var brokerConnected: Bool
        var homeSynced: Bool
    }

    private let stateDirectory: StateDirectory
    private let notifier: SystemdNotifier
    private let sample: @Sendable () async -> Sample
    private let tick: Duration
    private let logger: Logger

    private var last: HealthStatus?
    private var lastWritten = ContinuousClock.now
    private var lastPing: ContinuousClock.Instant?
    private var isReady = false
    private var isStopped = false
    private var loop: Task<Void, Never>?
    /// Whether a failure to write health.json was logged already (it is logged once, not every tick).
    private var reportedWriteFailure = false

    /// - Parameters:
    ///   - sample: reads the gateway's state; it should await the gateway's actor so that it proves the
    ///     main loops answer.
    ///   - tick: how often to sample; also the longest delay of `READY=1` after the home synced.
    init(
        stateDirectory: StateDirectory, notifier: SystemdNotifier = SystemdNotifier(), tick: Duration = .seconds(1),
        logger: Logger, sample: @escaping @Sendable () async -> Sample
    ) {
        self.stateDirectory = stateDirectory
        self.notifier = notifier
        self.tick = tick
        self.logger = logger
        self.sample = sample
    }

    /// Starts sampling; returns at once. It is the first service of `run`, started before anything that
    /// may take long (the first broker connection), so that the watchdog is fed from the start.
    func start() {
        guard loop == nil, !isStopped else { return }
        record(Sample(brokerConnected: false, homeSynced: false))
        loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.step()
                try? await Task.sleep(for: self.tick)
            }
        }
    }

    /// A clean stop has begun: `STOPPING=1`, and `health.json` says stopped from now on. Called when the
    /// stop is requested, and again (doing nothing) when this last service stops.
    func stopping() {
        guard !isStopped else { return }
        isStopped = true
        loop?.cancel()
        loop = nil
        notifier.stopping()
        write(HealthStatus(state: .stopped, brokerConnected: false, homeSynced: false, updated: Date()))
    }

    private func step() async {
        let now = await sample()
        guard !isStopped else { return }
        record(now)
        if let interval = notifier.watchdogInterval {
            let clock = ContinuousClock.now
            if lastPing.map({ clock - $0 >= interval - tick }) ?? true {
                notifier.watchdog()
                lastPing = clock
            }
        }
    }

    /// Writes the sample when it differs from the last one or the file is due for a refresh, and tells
    /// systemd what changed.
    private func record(_ sample: Sample) {
        let becomesReady = sample.brokerConnected && sample.homeSynced && !isReady
        if becomesReady { isReady = true }
        let status = HealthStatus(
            state: isReady ? .running : .starting, brokerConnected: sample.brokerConnected,
            homeSynced: sample.homeSynced, updated: Date())
        let changed = last.map { $0.state != status.state || $0.summary != status.summary } ?? true
        if becomesReady {
            notifier.ready(status: status.summary)
        } else if changed {
            notifier.status(status.summary)
        }
        if changed || ContinuousClock.now - lastWritten >= HealthStatus.refreshInterval {
            write(status)
        }
    }

    private func write(_ status: HealthStatus) {
        last = status
        lastWritten = .now
        do {
            try stateDirectory.write(status.encoded(), to: HealthStatus.fileName, durable: false)
            reportedWriteFailure = false
        } catch {
            guard !reportedWriteFailure else { return }
            reportedWriteFailure = true
            logger.warning("cannot write the health file (hap2mqtt healthcheck reads it): \(error)")
        }
    }
}
