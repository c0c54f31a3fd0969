import Logging

/// The one life cycle of `hap2mqtt run`: starts its services in the order given, waits for a stop
/// request, then stops the started ones in reverse order, all in the task that calls `run` (structured
/// concurrency: every service's `run` is a child task, and `run(until:)` returns only when each ended).
///
/// A stop request that comes while a service is still starting (the MQTT client waiting for the broker)
/// cancels that start; the services after it are never started. A service whose start fails stops the
/// ones before it, and `run(until:)` throws. Cancelling the calling task counts as a stop request.
///
/// Log lines (label of `logger`): the stop at `notice` (`received signal 15; stopping`, or `received a
/// signal before the broker could be reached; stopping`), `stopped` at `info` at the end, and each
/// service started and stopped at `debug`.
struct ServiceGroup: Sendable {
    let services: [Service]
    let logger: Logger

    /// A group of `services`, started in this order.
    init(_ services: [Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Starts the services, waits for `stop`, and stops them in reverse order.
    /// - Throws: `ServiceStartError` when a service could not start (not when a stop request cut its
    ///   start short); the services started before it have been stopped.
    func run(until stop: StopRequest) async throws(ServiceStartError) {
        let outcome = await withTaskCancellationHandler {
            await runServices(until: stop)
        } onCancel: {
            stop.request(.cancelled)
        }
        try outcome.get()
    }

    private func runServices(until stop: StopRequest) async -> Result<Void, ServiceStartError> {
        await withTaskGroup(of: Void.self) { runs in
            var started: [(service: Service, halt: StopRequest)] = []
            var failure: ServiceStartError?
            var stoppedWhileStarting = false
            for service in services {
                guard stop.reason == nil else { break }
                if let error = await start(service, unless: stop) {
                    if let reason = stop.reason {
                        let what = service.awaiting ?? "the \(service.name) started"
                        logger.notice("\(reason.whileStarting) before \(what); stopping")
                        stoppedWhileStarting = true
                    } else {
                        failure = error
                    }
                    break
                }
                logger.debug("started \(service.name)")
                let halt = StopRequest()
                if let work = service.run { runs.addTask { await Self.run(work, until: halt) } }
                started.append((service, halt))
            }
            if failure == nil, !stoppedWhileStarting {
                let reason = await stop.wait() ?? .cancelled
                logger.notice("\(reason.whileRunning); stopping")
            }
            for (service, halt) in started.reversed() {
                await service.stop()
                halt.request(.requested(by: "the service group"))
                logger.debug("stopped \(service.name)")
            }
            await runs.waitForAll()
            logger.info("stopped")
            return failure.map { .failure($0) } ?? .success(())
        }
    }

    /// Starts `service`, cancelling the start when `stop` is requested first. Returns nil when it
    /// started, else the error its start threw.
    private func start(_ service: Service, unless stop: StopRequest) async -> ServiceStartError? {
        enum Step: Sendable {
            case started(ServiceStartError?)
            case stopRequested
        }
        return await withTaskGroup(of: Step.self) { group in
            group.addTask {
                do throws(ServiceStartError) {
                    try await service.start()
                    return .started(nil)
                } catch {
                    return .started(error)
                }
            }
            group.addTask {
                _ = await stop.wait()
                return .stopRequested
            }
            var outcome: ServiceStartError?
            // Whichever ends first, the other is cancelled: a start that ended needs no stop watch, and a
            // stop request ends the start.
            while let step = await group.next() {
                group.cancelAll()
                if case .started(let error) = step { outcome = error }
            }
            return outcome
        }
    }

    /// Runs `work` until it ends by itself or `halt` is requested, which cancels it.
    private static func run(_ work: @escaping @Sendable () async -> Void, until halt: StopRequest) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await work() }
            group.addTask { _ = await halt.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
