import HAP2MQTTTesting
import Logging
import Synchronization
import Testing

@testable import hap2mqtt

/// The life cycle of `run` with services that record what is done to them.
@Suite("One life cycle for run: the service group")
struct ServiceGroupTests {
    /// A service that records its start, the end of its run, and its stop in `journal`.
    static func service(
        _ name: String, _ journal: Recorder<String>,
        start: @escaping @Sendable () async throws(ServiceStartError) -> Void = {},
        runs: Bool = true
    ) -> Service {
        let run: @Sendable () async -> Void = {
            // Runs until cancelled, as the gateway and the pairing watcher do.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            journal.append("run ended \(name)")
        }
        let recordedStart: @Sendable () async throws(ServiceStartError) -> Void = {
            () async throws(ServiceStartError) in
            try await start()
            journal.append("start \(name)")
        }
        return Service(name, start: recordedStart, run: runs ? run : nil, stop: { journal.append("stop \(name)") })
    }

    @Test("services start in order and, on a stop request from code, stop in reverse, each run ending after its stop")
    func order() async throws {
        let journal = Recorder<String>()
        let log = LogCapture()
        let group = ServiceGroup(
            [Self.service("a", journal), Self.service("b", journal, runs: false), Self.service("c", journal)],
            logger: log.logger(label: "hap2mqtt"))
        let stop = StopRequest()
        async let running: Void = group.run(until: stop)
        try await eventually("every service started") { journal.elements.count == 3 }
        stop.request(.requested(by: "the test"))
        try await running
        #expect(journal.elements.prefix(3) == ["start a", "start b", "start c"])
        let stops = journal.elements.filter { $0.hasPrefix("stop") }
        #expect(stops == ["stop c", "stop b", "stop a"])
        let elements = journal.elements
        for name in ["a", "c"] {
            let stopped = try #require(elements.firstIndex(of: "stop \(name)"))
            let ended = try #require(
                elements.firstIndex(of: "run ended \(name)"), "every run ended before run(until:) returned")
            #expect(stopped < ended)
        }
        #expect(log.records(.notice, containing: "stopping").map(\.message) == ["the test asked to stop; stopping"])
        #expect(log.lines.last == "info hap2mqtt: stopped ")
        #expect(log.records(.debug, containing: "stopped ").map(\.message) == ["stopped c", "stopped b", "stopped a"])
    }

    @Test("a stop while a service is starting cancels that start; the later ones never start, the earlier ones stop")
    func stopWhileStarting() async throws {
        let journal = Recorder<String>()
        let log = LogCapture()
        let waiting = Service(
            "MQTT client", awaiting: "the broker could be reached",
            start: { () async throws(ServiceStartError) in
                journal.append("waiting")
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                throw ServiceStartError(service: "MQTT client", reason: "stopped")
            })
        let group = ServiceGroup(
            [Self.service("a", journal), waiting, Self.service("b", journal)], logger: log.logger(label: "hap2mqtt"))
        let stop = StopRequest()
        async let running: Void = group.run(until: stop)
        try await eventually("the second service waits") { journal.elements.contains("waiting") }
        stop.request(.signal(15))
        try await running
        #expect(journal.elements == ["start a", "waiting", "stop a", "run ended a"])
        #expect(
            log.records(.notice, containing: "stopping").map(\.message)
                == ["received a signal before the broker could be reached; stopping"])
    }

    @Test("a service that cannot start stops those before it, and the error says which and why")
    func startFailure() async throws {
        let journal = Recorder<String>()
        let broken = Service(
            "web page",
            start: { () async throws(ServiceStartError) in
                throw ServiceStartError(service: "web page", reason: "port 8080 is in use")
            })
        let group = ServiceGroup(
            [Self.service("a", journal), Self.service("b", journal), broken, Self.service("c", journal)],
            logger: Logger(label: "hap2mqtt"))
        await #expect(throws: ServiceStartError(service: "web page", reason: "port 8080 is in use")) {
            try await group.run(until: StopRequest())
        }
        #expect(journal.elements.filter { !$0.hasPrefix("run ended") } == ["start a", "start b", "stop b", "stop a"])
        #expect(
            ServiceStartError(service: "web page", reason: "port 8080 is in use").description
                == "cannot start the web page: port 8080 is in use")
    }

    @Test("a stop requested before the start starts nothing; cancelling the calling task stops the services too")
    func earlyStopAndCancellation() async throws {
        let journal = Recorder<String>()
        let stop = StopRequest()
        stop.request(.signal(2))
        stop.request(.requested(by: "a second request"))
        #expect(stop.reason == .signal(2), "the first reason is kept")
        try await ServiceGroup([Self.service("a", journal)], logger: Logger(label: "hap2mqtt")).run(until: stop)
        #expect(journal.elements.isEmpty)

        let log = LogCapture()
        let group = ServiceGroup(
            [Self.service("a", journal), Self.service("b", journal)], logger: log.logger(label: "hap2mqtt"))
        let task = Task { try await group.run(until: StopRequest()) }
        try await eventually("both started") { journal.elements.count == 2 }
        task.cancel()
        try await task.value
        #expect(journal.elements.filter { $0.hasPrefix("stop") } == ["stop b", "stop a"])
        #expect(log.records(.notice, containing: "stopping").map(\.message) == ["cancelled; stopping"])
    }
}
