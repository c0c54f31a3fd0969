/// The encrypted framing of a HAP session after pair-verify (HAP spec §6.5.2; docs/hap-notes.md §3).
///
/// Each frame is `length(2, little-endian) ‖ ciphertext(length) ‖ tag(16)` with at most 1024 plaintext bytes,
/// sealed with ChaCha20-Poly1305, the two length bytes as AAD, and the nonce `0000 0000 ‖ counter`
/// (UInt64, little-endian). Each direction has its own key and counter, starting at 0.
///
/// `open(_:)` takes bytes as they arrive (a frame split over reads, several frames in one read) and returns
/// the plaintext of the complete frames. A frame that fails authentication breaks the cipher: every later
/// call throws `SessionCipherError.broken`, and the caller must close the connection.
public struct HAPSessionCipher: Sendable {
    /// The largest plaintext a frame carries.
    public static let maximumFrameLength = 1024

    private let encryptionKey: [UInt8]
    private let decryptionKey: [UInt8]
    private var sendCounter: UInt64 = 0
    private var receiveCounter: UInt64 = 0
    private var pending: [UInt8] = []
    /// True after a frame failed authentication; the session cannot continue.
    public private(set) var isBroken = false

    /// A controller-side cipher: encrypts with `keys.controllerToAccessory`, decrypts with
    /// `keys.accessoryToController`.
    public init(keys: SessionKeys) {
        self.init(encryptionKey: keys.controllerToAccessory, decryptionKey: keys.accessoryToController)
    }

    /// A cipher with the keys given directly (the accessory side swaps them; used by tests).
    public init(encryptionKey: [UInt8], decryptionKey: [UInt8]) {
        self.encryptionKey = encryptionKey
        self.decryptionKey = decryptionKey
    }

    /// Bytes received but not yet decrypted (part of a frame).
    public var bufferedByteCount: Int { pending.count }

    /// The frames for `plaintext`, ready to write (`plaintext.count` + 18 bytes per started KiB). Empty input
    /// gives no frames.
    /// - Throws: `SessionCipherError.broken` after an authentication failure, `.crypto` if libcrypto fails.
    public mutating func seal(_ plaintext: [UInt8]) throws(SessionCipherError) -> [UInt8] {
        guard !isBroken else { throw .broken }
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + (plaintext.count / Self.maximumFrameLength + 1) * 18)
        var start = 0
        while start < plaintext.count {
            let end = min(start + Self.maximumFrameLength, plaintext.count)
            let length = UInt16(end - start)
            let aad = [UInt8(length & 0xFF), UInt8(length >> 8)]
            let frame: [UInt8]
            do {
                frame = try ChaCha20Poly1305.seal(
                    Array(plaintext[start..<end]), key: encryptionKey,
                    nonce: Self.nonce(sendCounter), aad: aad)
            } catch {
                throw .crypto(error)
            }
            sendCounter += 1
            output += aad
            output += frame
            start = end
        }
        return output
    }

    /// Adds received `bytes` and returns the plaintext of every frame now complete, in order (possibly
    /// empty). Incomplete frames stay buffered for the next call.
    /// - Throws: `SessionCipherError.authenticationFailed` when a frame's tag does not verify (the cipher is
    ///   broken from then on), `.broken` on any call after that.
    public mutating func open(_ bytes: [UInt8]) throws(SessionCipherError) -> [UInt8] {
        guard !isBroken else { throw .broken }
        pending += bytes
        var plaintext: [UInt8] = []
        var offset = 0
        while pending.count - offset >= 2 {
            let length = Int(pending[offset]) | Int(pending[offset + 1]) << 8
            let frameEnd = offset + 2 + length + ChaCha20Poly1305.tagLength
            guard frameEnd <= pending.count else { break }
            let aad = Array(pending[offset..<(offset + 2)])
            do {
                plaintext += try ChaCha20Poly1305.open(
                    Array(pending[(offset + 2)..<frameEnd]), key: decryptionKey,
                    nonce: Self.nonce(receiveCounter), aad: aad)
            } catch {
                isBroken = true
                pending = []
                throw error == .authenticationFailed ? .authenticationFailed(frame: receiveCounter) : .crypto(error)
            }
            receiveCounter += 1
            offset = frameEnd
        }
        pending.removeFirst(offset)
        // A large answer (`/accessories`) grew the buffer; an idle connection need not keep that capacity.
        if pending.isEmpty, pending.capacity > Self.keptCapacity { pending = [] }
        return plaintext
    }

    /// Bytes of buffer capacity kept between reads (a few frames of 1 KiB).
    static let keptCapacity = 16 << 10

    /// `0000 0000 ‖ counter` as UInt64 little-endian.
    private static func nonce(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
    }
}

/// Why the encrypted session cannot continue. Every case means: close the connection.
public enum SessionCipherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Frame number `frame` (counting from 0 in the accessory→controller direction) failed authentication:
    /// altered data, lost bytes, or keys that do not match.
    case authenticationFailed(frame: UInt64)
    /// The cipher was used after an authentication failure.
    case broken
    /// libcrypto failed.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .authenticationFailed(let frame):
            return "encrypted frame \(frame) from the accessory failed authentication: the session must be closed"
        case .broken: return "the encrypted session failed earlier and cannot be used"
        case .crypto(let error): return error.description
        }
    }
}
