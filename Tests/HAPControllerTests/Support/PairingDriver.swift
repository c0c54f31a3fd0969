import HAPController
import Testing

/// Runs the controller's pair-setup against a test accessory, the way the HTTP layer will: each body the
/// state machine gives is "posted" to the accessory and the answer fed back.
func pairSetup(
    _ accessory: inout TestAccessory, controller: ControllerIdentity, code: String? = nil,
    featureFlags: Int = 0
) throws -> PairSetupResult {
    var setup = PairSetup(
        setupCode: try SetupCode(code ?? accessory.setupCode), controller: controller,
        featureFlags: featureFlags)
    var body = setup.start()
    for _ in 0..<3 {
        switch try setup.receive(try accessory.pairSetup(body)) {
        case .send(let next): body = next
        case .paired(let result): return result
        }
    }
    Issue.record("pair-setup did not finish after M6")
    throw PairingError.outOfOrder("test driver")
}

/// Runs pair-verify against a test accessory and returns the controller's session keys.
func pairVerify(_ accessory: inout TestAccessory, controller: ControllerIdentity, pairing: Pairing) throws
    -> SessionKeys
{
    var verify = PairVerify(controller: controller, pairing: pairing)
    var body = try verify.start()
    for _ in 0..<2 {
        switch try verify.receive(try accessory.pairVerify(body)) {
        case .send(let next): body = next
        case .verified(let keys): return keys
        }
    }
    Issue.record("pair-verify did not finish after M4")
    throw PairingError.outOfOrder("test driver")
}

/// A stored pairing for `accessory` as pair-setup would have produced it.
func pairing(for accessory: TestAccessory, controller: ControllerIdentity) -> Pairing {
    Pairing(
        accessoryPairingID: accessory.pairingID, accessoryLTPK: accessory.longTermKey.publicKey,
        controllerPairingID: controller.pairingID, host: "127.0.0.1", port: 51826)
}
