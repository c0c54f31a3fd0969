import HomeModel

extension HAPConnection {
    /// The time-out of one pair-setup step: SRP takes embedded accessories several seconds (aiohomekit
    /// allows 30 s per request).
    public static let pairSetupStepTimeout: Duration = .seconds(30)

    /// Runs pair-setup M1–M6 (HAP spec §5.6; docs/hap-notes.md §1.3) over `POST /pair-setup` on this
    /// cleartext connection and returns the accessory's long-term identity. Save it at once
    /// (docs/hap-notes.md §7.16); the connection stays in cleartext and can run `verify` next.
    ///
    /// A code the specification forbids (`SetupCode.isForbiddenBySpecification`) is used anyway, with a
    /// warning in the log that does not show it.
    /// - Parameters:
    ///   - featureFlags: the accessory's `ff` TXT value, when known; it decides the pairing method.
    ///   - timeout: the limit for each step's answer.
    /// - Throws: `HAPConnectionError.pairing` with the typed `PairingError` (`.wrongSetupCode`,
    ///   `.alreadyPaired`, `.tooManyAttempts`, `.busy`, `.backoff`, `.maxPeers`, …); `.alreadyVerified` on
    ///   an encrypted connection; `.refused` or `.invalidResponse` for an HTTP error; or why the connection
    ///   closed.
    public func pairSetup(
        setupCode: SetupCode, controller: ControllerIdentity, featureFlags: Int = 0,
        timeout: Duration = HAPConnection.pairSetupStepTimeout
    ) async throws(HAPConnectionError) -> PairSetupResult {
        do {
            return try await pairSetupSteps(
                setupCode: setupCode, controller: controller, featureFlags: featureFlags, timeout: timeout)
        } catch {
            throw error.error
        }
    }

    /// `pairSetup`, with failures that tell whether the accessory had answered a step before: a
    /// connection that breaks on the first request points at something that is not an accessory.
    func pairSetupSteps(
        setupCode: SetupCode, controller: ControllerIdentity, featureFlags: Int, timeout: Duration
    ) async throws(PairSetupFailure) -> PairSetupResult {
        guard !isEncrypted else { throw PairSetupFailure(error: .alreadyVerified, answered: false) }
        if setupCode.isForbiddenBySpecification {
            logger.warning(
                "the setup code is one the HAP specification forbids (trivial or sequential); pairing anyway")
        }
        var setup = PairSetup(setupCode: setupCode, controller: controller, featureFlags: featureFlags)
        var body = setup.start()
        for exchange in 0..<3 {
            let response: [UInt8]
            do {
                response = try await postPairing("/pair-setup", body, timeout: timeout)
            } catch {
                throw PairSetupFailure(error: error, answered: exchange > 0)
            }
            let step: PairSetup.Step
            do {
                step = try setup.receive(response)
            } catch {
                throw PairSetupFailure(error: .pairing(error), answered: true)
            }
            switch step {
            case .send(let next): body = next
            case .paired(let result):
                logger.debug("pair-setup finished", ["hap.accessory": result.accessoryPairingID])
                return result
            }
        }
        throw PairSetupFailure(error: .pairing(.outOfOrder("pair-setup did not finish after M6")), answered: true)
    }

    /// Runs pair-verify M1–M4 (HAP spec §5.7; docs/hap-notes.md §2) as `controller` with the accessory of
    /// `pairing`, then encrypts everything after M4 with the session keys. Runs once per connection.
    /// - Throws: `HAPConnectionError.pairing` (`.authenticationFailed` when the accessory no longer knows
    ///   this controller, `.wrongAccessory` when another accessory answers at the address, …), after
    ///   which the connection is closed; `.alreadyVerified`; or why the connection closed.
    public func verify(controller: ControllerIdentity, pairing: Pairing) async throws(HAPConnectionError) {
        guard beginVerify() else { throw .alreadyVerified }
        var machine = PairVerify(controller: controller, pairing: pairing)
        do throws(HAPConnectionError) {
            let m1: [UInt8]
            do { m1 = try machine.start() } catch { throw .pairing(error) }
            let m2 = try await postPairing("/pair-verify", m1)
            let m3: [UInt8]
            do throws(PairingError) {
                guard case .send(let next) = try machine.receive(m2) else {
                    throw .outOfOrder("pair-verify ended at M2")
                }
                m3 = next
            } catch {
                throw .pairing(error)
            }
            let m4 = try await postPairing("/pair-verify", m3, switchesToEncryption: true)
            do throws(PairingError) {
                guard case .verified(let keys) = try machine.receive(m4) else {
                    throw .outOfOrder("pair-verify did not end at M4")
                }
                startEncryption(keys)
            } catch {
                throw .pairing(error)
            }
        } catch {
            shutDown(error)
            throw error
        }
        logger.debug("pair-verified", ["hap.accessory": pairing.accessoryPairingID])
    }

    /// Asks an accessory that is not paired yet to identify itself (`POST /identify`, docs/hap-notes.md
    /// §4.7). Paired accessories refuse it; use `HAPClient.identify` for them.
    /// - Throws: `HAPConnectionError.refused` with the accessory's HAP status (-70401 when it is paired),
    ///   `.invalidResponse`, or why the connection closed.
    public func identifyUnpaired() async throws(HAPConnectionError) {
        let response = try await send(HAPRequests.identifyUnpaired())
        guard response.isSuccess else { throw Self.refusal(response, request: "POST /identify") }
    }

    /// POSTs a TLV8 pairing body to `path` and returns the answer's body. An HTTP error status is an error
    /// unless the body carries a pairing `Error` item, which the state machine then reads.
    func postPairing(
        _ path: String, _ body: [UInt8], timeout: Duration? = nil, switchesToEncryption: Bool = false
    ) async throws(HAPConnectionError) -> [UInt8] {
        let response = try await send(
            .post(path, tlv8: body), timeout: timeout, switchesToEncryption: switchesToEncryption)
        guard response.isSuccess || (try? TLV8(decoding: response.body))?[.error] != nil else {
            throw Self.refusal(response, request: "POST \(path)")
        }
        return response.body
    }

    /// The error for an answer that refused `request` with an HTTP error: its HAP status when the body has
    /// one, else the HTTP status.
    static func refusal(_ response: HTTPMessage, request: String) -> HAPConnectionError {
        do {
            let status = try HAPCharacteristicResult.status(httpStatus: response.status, body: response.body)
            return status.isSuccess
                ? .invalidResponse(.httpStatus(response.status), request: request) : .refused(status, request: request)
        } catch {
            return .invalidResponse(error, request: request)
        }
    }
}

/// Why `HAPConnection.pairSetupSteps` failed, and whether the accessory had answered a pair-setup request
/// before the failure (false: the first exchange failed).
struct PairSetupFailure: Error {
    var error: HAPConnectionError
    var answered: Bool
}
