import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT

/// QoS 1 `/set`s sent while the broker restarts must all be carried out (the gateway's
/// persistent session, docs/topics.md "Reliability").
extension FaultsScenario {
    /// What one run of broker restarts came to.
    struct CommandLoss {
        /// Commands the broker acknowledged.
        var accepted: Int
        /// Of those, how many the gateway never answered.
        var lost: Int
        /// Of the answered ones, how many were answered with an error.
        var failed: Int
        /// Writes of the hue that reached the accessory (a command that waited while a write of the same
        /// characteristic was in flight is merged with the newer ones, docs/DESIGN.md "Writes").
        var written: Int
        /// Whether the accessory ended at the last acknowledged command's value.
        var endsAtLastValue: Bool
    }

    /// A `/set` of the Light's hue every 50–200 ms (QoS 1, each with an MQTT 5 response topic and its
    /// number as correlation data, so that each is answered on its own), `restarts` restarts of a broker
    /// with persistence on the same port (SIGTERM, so that it saves the sessions), then the commands the
    /// broker acknowledged against the answers (to a client whose persistent session keeps them too).
    func lostCommands(restarts: Int, python: String, context: BenchmarkContext) async throws -> CommandLoss {
        let broker = try await MosquittoBroker(options: .init(persistent: true))
        let base = context.uniqueBase(name)
        let bridge = try await HAPPythonAccessory.start(python: python)
        let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
        defer { try? FileManager.default.removeItem(at: gateway.directory) }
        do {
            try await pair(gateway, port: bridge.port, code: bridge.setupCode)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["\(base)/bridge/state"])
            try await start(gateway, observer: observer, base: base)
            let answers = try await MQTTTestClient.connect(to: broker, subscribe: ["\(base)/response/faults"]) {
                $0.sessionExpiry = .seconds(60)
            }
            let commander = try await MQTTTestClient.connect(to: broker, subscribe: [])
            let publisher = NumberedPublisher(client: commander.client) { n in
                MQTTMessage(
                    topic: "\(base)/light/lightbulb/hue/set", string: "\(Self.hue(n))", qos: .atLeastOnce,
                    properties: MQTTProperties(
                        responseTopic: "\(base)/response/faults", correlationData: Array("\(n)".utf8)))
            }
            publisher.start()
            for restart in 1...restarts {
                let before = publisher.accepted.count
                try await Self.waitUntil("more commands accepted before restart \(restart)") {
                    publisher.accepted.count >= before + 5
                }
                try await broker.restart()
                context.progress(
                    "broker restarted \(restart)/\(restarts); \(publisher.accepted.count) commands accepted")
            }
            let last = publisher.accepted.count
            try await Self.waitUntil("commands accepted after the last restart") {
                publisher.accepted.count >= last + 10
            }
            await publisher.stop()
            let accepted = publisher.accepted
            func answered() async -> [Int: String] {
                var outcomes: [Int: String] = [:]
                for message in await answers.messages(on: "\(base)/response/faults") {
                    guard let data = message.properties.correlationData,
                        let n = Int(String(decoding: data, as: UTF8.self))
                    else { continue }
                    outcomes[n] = message.payloadString ?? ""
                }
                return outcomes
            }
            // The last answers need a moment after the last acknowledgement; a lost command gets none.
            let deadline = ContinuousClock.now + .seconds(30)
            while !Set(await answered().keys).isSuperset(of: accepted), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            let outcomes = await answered()
            let newest = accepted.max().map(Self.hue)
            let final = try await bridge.value(accessory: "Light", characteristic: "Hue")?.doubleValue
            let loss = CommandLoss(
                accepted: accepted.count, lost: accepted.filter { outcomes[$0] == nil }.count,
                failed: accepted.filter { outcomes[$0].map { !$0.contains(#""status":"ok""#) } ?? false }.count,
                written: bridge.setterCalls.filter { $0.accessory == "Light" && $0.characteristic == "Hue" }.count,
                endsAtLastValue: newest.map(Double.init) == final)
            await answers.disconnect()
            await commander.disconnect()
            await observer.disconnect()
            await gateway.stop()
            await bridge.stop()
            await broker.stop()
            return loss
        } catch {
            await gateway.stop()
            await bridge.stop()
            await broker.stop()
            throw error
        }
    }

    /// The hue command `n` sends: 0…360, so that values repeat only every 361 commands.
    private static func hue(_ n: Int) -> Int { n % 361 }

    /// Polls `condition` every 50 ms for up to 60 s.
    /// - Throws: `BenchmarkError.timedOut` naming `what`.
    static func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () async -> Bool)
        async throws
    {
        let deadline = ContinuousClock.now + timeout
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw BenchmarkError.timedOut(what) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
