import HAP2MQTTTesting
import HAPController
import Logging
import Testing

/// A HAP-python accessory paired with a controller in a temporary state directory, shared by the tests
/// of one suite (`@Suite(.pairedFixture)`): HAP-python takes about a second to start and pair-setup
/// about 80 ms, so suites whose tests only read, write and subscribe share one. Each test opens its own
/// connection with `client()` and sets the values it relies on itself, so no test depends on another.
struct PairedFixture: Sendable {
    let accessory: HAPPythonAccessory
    let controller: HAPController
    let pairing: Pairing
    let directory: TemporaryDirectory

    /// The fixture of the running suite.
    @TaskLocal static var current: PairedFixture?

    /// The running suite's fixture; fails the test when the suite has none.
    static func shared() throws -> PairedFixture {
        try #require(current, "the suite needs the .pairedFixture trait")
    }

    /// Starts a fresh accessory (with the accessories of `profile`) and pairs a new controller with it.
    static func start(profile: HAPPythonAccessory.Profile = .default) async throws -> PairedFixture {
        let accessory = try await HAPPythonAccessory.start(profile: profile)
        let directory = try TemporaryDirectory()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode))
        return PairedFixture(accessory: accessory, controller: controller, pairing: pairing, directory: directory)
    }

    /// A new pair-verified connection to the accessory.
    func client() async throws -> HAPClient { try await controller.connect(to: pairing) }

    func stop() async {
        await accessory.stop()
        directory.remove()
    }
}

/// Starts a `PairedFixture` once for the suite it is applied to and stops it after the suite's last test.
struct PairedFixtureTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
        async throws
    {
        let fixture = try await PairedFixture.start()
        do {
            try await PairedFixture.$current.withValue(fixture) { try await function() }
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}

extension Trait where Self == PairedFixtureTrait {
    /// One paired HAP-python accessory for the whole suite (`PairedFixture.shared()`).
    static var pairedFixture: Self { Self() }
}
