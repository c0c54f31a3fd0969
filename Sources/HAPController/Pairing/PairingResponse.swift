/// Reading a pairing response (pair-setup, pair-verify, `/pairings`): TLV8 decoding, the `Error` item, and
/// the `State` item. A missing State is taken as the expected one (docs/hap-notes.md §1.2: Heatmiser Neohub
/// omits it).
enum PairingResponse {
    /// The decoded response to `step`, after checking it carries no `Error` and, if it has a `State`, that it
    /// is `expectedState`.
    ///
    /// - Parameter authentication: what `Error=2` means at this step.
    /// - Throws: the `PairingError` for the accessory's error code, or `.malformedResponse`.
    static func decode(
        _ body: [UInt8], step: String, expectedState: UInt8, authentication: PairingError
    ) throws(PairingError) -> TLV8 {
        let message: TLV8
        do {
            message = try TLV8(decoding: body)
        } catch {
            throw .malformedResponse(step: step, reason: error.description)
        }
        if let error = message[.error] {
            guard error.count == 1 else {
                throw .malformedResponse(step: step, reason: "Error item of \(error.count) bytes")
            }
            throw mapError(
                code: error[0], retryDelay: message.integer(.retryDelay), step: step,
                authentication: authentication)
        }
        if let state = message[.state], state != [expectedState] {
            throw .malformedResponse(
                step: step,
                reason: "State \(state.map(String.init).joined(separator: ",")) where \(expectedState) was expected")
        }
        return message
    }

    /// The `PairingError` for an accessory's `Error` code (HAP spec §5.15 table 5-5).
    static func mapError(code: UInt8, retryDelay: UInt64?, step: String, authentication: PairingError) -> PairingError {
        switch PairingTLVError(rawValue: code) {
        case .authentication: return authentication
        case .backoff: return .backoff(retryDelay: retryDelay.map { Int(clamping: $0) })
        case .maxPeers: return .maxPeers
        case .maxTries: return .tooManyAttempts
        case .unavailable: return .alreadyPaired
        case .busy: return .busy
        case .unknown, nil: return .accessoryError(code: code, step: step)
        }
    }

    /// The value of `type`, which must be present and, when `length` is given, exactly that long.
    static func require(_ type: TLV8Type, in message: TLV8, step: String, length: Int? = nil) throws(PairingError)
        -> [UInt8]
    {
        guard let value = message[type] else { throw .malformedResponse(step: step, reason: "no \(type) item") }
        if let length, value.count != length {
            throw .malformedResponse(step: step, reason: "\(type) is \(value.count) bytes, not \(length)")
        }
        return value
    }

    /// Decrypts the `EncryptedData` of `message` with `key` and the HAP nonce `label`, and decodes the
    /// sub-TLV inside.
    static func decryptSubTLV(_ message: TLV8, key: [UInt8], label: String, step: String) throws(PairingError) -> TLV8 {
        let sealed = try require(.encryptedData, in: message, step: step)
        let plaintext: [UInt8]
        do {
            plaintext = try ChaCha20Poly1305.open(sealed, key: key, nonce: ChaCha20Poly1305.nonce(label: label))
        } catch .authenticationFailed {
            throw .decryptionFailed(step: step)
        } catch {
            throw .crypto(error)
        }
        do {
            return try TLV8(decoding: plaintext)
        } catch {
            throw .malformedResponse(step: step, reason: "encrypted \(error.description)")
        }
    }

    /// The `EncryptedData` value for `subTLV`, sealed with `key` and the HAP nonce `label`.
    static func encryptSubTLV(_ subTLV: TLV8, key: [UInt8], label: String) throws(PairingError) -> [UInt8] {
        do {
            return try ChaCha20Poly1305.seal(subTLV.encoded(), key: key, nonce: ChaCha20Poly1305.nonce(label: label))
        } catch {
            throw .crypto(error)
        }
    }
}

/// Runs a throwing crypto operation inside a pairing step, reporting its failure as `PairingError.crypto`.
func pairingCrypto<T>(_ body: () throws(CryptoError) -> T) throws(PairingError) -> T {
    do {
        return try body()
    } catch {
        throw .crypto(error)
    }
}
