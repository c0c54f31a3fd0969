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
    /// The libcrypto contexts of each direction, made at first use and kept for the session (copies of
    /// this cipher share them; each frame sets its own nonce).
    private var sealer: ChaCha20Poly1305Context?
    private var opener: ChaCha20Poly1305Context?
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
        do throws(CryptoError) {
            let context = try Self.context(&sealer, key: encryptionKey, encrypt: true)
            var counter = sendCounter
            try plaintext.withBytes { all throws(CryptoError) in
                var start = 0
                while start < all.count {
                    let end = min(start + Self.maximumFrameLength, all.count)
                    let length = UInt16(end - start)
                    let aad = [UInt8(length & 0xFF), UInt8(length >> 8)]
                    output += aad
                    try Self.withNonce(counter) { nonce throws(CryptoError) in
                        try aad.withBytes { a throws(CryptoError) in
                            try context.seal(
                                UnsafeRawBufferPointer(rebasing: all[start..<end]), nonce: nonce, aad: a,
                                appendingTo: &output)
                        }
                    }
                    counter += 1
                    start = end
                }
            }
            sendCounter = counter
        } catch {
            throw .crypto(error)
        }
        return output
    }

    /// Adds received `bytes` and returns the plaintext of every frame now complete, in order (possibly
    /// empty). Incomplete frames stay buffered for the next call.
    /// - Throws: `SessionCipherError.authenticationFailed` when a frame's tag does not verify (the cipher is
    ///   broken from then on), `.broken` on any call after that.
    public mutating func open(_ bytes: [UInt8]) throws(SessionCipherError) -> [UInt8] {
        try bytes.withBytes { raw throws(SessionCipherError) in try open(raw) }
    }

    /// `open(_:)` for bytes where they were read: frames complete in `bytes` are decrypted from there,
    /// only an incomplete one is copied and kept.
    public mutating func open(_ bytes: UnsafeRawBufferPointer) throws(SessionCipherError) -> [UInt8] {
        guard !isBroken else { throw .broken }
        var plaintext: [UInt8] = []
        if pending.isEmpty {
            let used = try openFrames(bytes, into: &plaintext)
            if used < bytes.count { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...])) }
            return plaintext
        }
        pending.append(contentsOf: bytes)
        var buffered = pending
        pending = []
        let used = try buffered.withBytes { raw throws(SessionCipherError) in
            try openFrames(raw, into: &plaintext)
        }
        buffered.removeFirst(used)
        // A large answer (`/accessories`) grew the buffer; an idle connection need not keep that capacity.
        pending = buffered.isEmpty && buffered.capacity > Self.keptCapacity ? [] : buffered
        return plaintext
    }

    /// Decrypts the complete frames at the start of `bytes` onto `plaintext`; how many bytes they used.
    private mutating func openFrames(_ bytes: UnsafeRawBufferPointer, into plaintext: inout [UInt8])
        throws(SessionCipherError) -> Int
    {
        var offset = 0
        while bytes.count - offset >= 2 {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            let textEnd = offset + 2 + length
            let frameEnd = textEnd + ChaCha20Poly1305.tagLength
            guard frameEnd <= bytes.count else { break }
            do throws(CryptoError) {
                let context = try Self.context(&opener, key: decryptionKey, encrypt: false)
                try Self.withNonce(receiveCounter) { nonce throws(CryptoError) in
                    try context.open(
                        UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<textEnd]),
                        tag: UnsafeRawBufferPointer(rebasing: bytes[textEnd..<frameEnd]), nonce: nonce,
                        aad: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 2)]), appendingTo: &plaintext)
                }
            } catch {
                isBroken = true
                pending = []
                throw error == .authenticationFailed ? .authenticationFailed(frame: receiveCounter) : .crypto(error)
            }
            receiveCounter += 1
            offset = frameEnd
        }
        return offset
    }

    /// The context kept in `slot`, made now at first use.
    private static func context(_ slot: inout ChaCha20Poly1305Context?, key: [UInt8], encrypt: Bool)
        throws(CryptoError) -> ChaCha20Poly1305Context
    {
        if let slot { return slot }
        let made = try ChaCha20Poly1305Context(key: key, encrypt: encrypt)
        slot = made
        return made
    }

    /// Bytes of buffer capacity kept between reads (a few frames of 1 KiB).
    static let keptCapacity = 16 << 10

    /// Calls `body` with the nonce `0000 0000 ‖ counter` (UInt64 little-endian), on the stack.
    private static func withNonce<R>(_ counter: UInt64, _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R)
        throws(CryptoError) -> R
    {
        var nonce: (UInt32, UInt64) = (0, 0)  // 16 bytes; the first 12 are used
        return try withUnsafeMutableBytes(of: &nonce) { raw throws(CryptoError) in
            raw.storeBytes(of: 0, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: counter.littleEndian, toByteOffset: 4, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: raw[0..<ChaCha20Poly1305.nonceLength]))
        }
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
