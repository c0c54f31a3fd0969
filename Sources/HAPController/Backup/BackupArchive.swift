/// The encrypted container of a backup (docs/DESIGN.md "Backup"): a fixed header, then the payload sealed
/// with ChaCha20-Poly1305 (RFC 8439) under a key that scrypt (RFC 7914) derives from the passphrase.
///
/// Header, 81 bytes, integers big-endian:
///
/// | bytes | field |
/// |---|---|
/// | 16 | magic `hap2mqtt backup\n` |
/// | 2 | format version (1) |
/// | 1 | key derivation (1: scrypt) |
/// | 1, 4, 4 | scrypt log2 N, r, p |
/// | 16 | salt |
/// | 1 | cipher (1: ChaCha20-Poly1305) |
/// | 12 | nonce |
/// | 16 | passphrase check |
/// | 8 | length of the sealed payload (ciphertext and 16-byte tag) |
///
/// The whole header is the cipher's additional data, so no byte of it can be changed unnoticed. scrypt
/// gives 48 bytes: the first 32 are the key, the last 16 the passphrase check, which tells a wrong
/// passphrase from a damaged archive without weakening either (a guess costs one scrypt either way).
public enum BackupArchive {
    /// The first bytes of every archive: text, so that `head -c 15` names the file.
    public static let magic: [UInt8] = Array("hap2mqtt backup\n".utf8)
    /// The format this version writes and the newest it reads.
    public static let formatVersion = 1
    /// The header's length in bytes.
    public static let headerLength = 81

    static let scryptID: UInt8 = 1
    static let chacha20Poly1305ID: UInt8 = 1
    static let saltLength = 16
    static let checkLength = 16
    /// The largest payload an archive may hold (64 MiB): accessory caches are a few KiB each.
    public static let maximumPayload = 64 << 20

    /// `payload` sealed under `passphrase`, with a fresh salt and nonce.
    /// - Throws: `BackupError.crypto` when randomness or libcrypto fail.
    public static func seal(_ payload: [UInt8], passphrase: [UInt8], parameters: Scrypt.Parameters = .standard)
        throws(BackupError) -> [UInt8]
    {
        do {
            return try seal(
                payload, passphrase: passphrase, parameters: parameters, salt: try SecureRandom.bytes(saltLength),
                nonce: try SecureRandom.bytes(ChaCha20Poly1305.nonceLength))
        } catch {
            throw .crypto(error)
        }
    }

    /// `payload` sealed under `passphrase` with this salt and nonce (the known-answer tests give them).
    static func seal(
        _ payload: [UInt8], passphrase: [UInt8], parameters: Scrypt.Parameters, salt: [UInt8], nonce: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try OpenSSL.requireLength(salt, saltLength, "salt")
        let keys = try derive(passphrase, salt: salt, parameters: parameters)
        var header = magic
        header.appendBigEndian(UInt16(formatVersion))
        header.append(scryptID)
        header.append(parameters.logN)
        header.appendBigEndian(parameters.r)
        header.appendBigEndian(parameters.p)
        header += salt
        header.append(chacha20Poly1305ID)
        header += nonce
        header += keys.check
        header.appendBigEndian(UInt64(payload.count + ChaCha20Poly1305.tagLength))
        return header + (try ChaCha20Poly1305.seal(payload, key: keys.key, nonce: nonce, aad: header))
    }

    /// Checks the header and the length of `archive` before any passphrase is asked for.
    /// - Throws: `BackupError.notABackup`, `.truncated`, `.damaged`, `.newerFormat`.
    public static func check(_ archive: [UInt8]) throws(BackupError) {
        _ = try header(of: archive)
    }

    /// The payload of `archive`, opened with `passphrase`.
    /// - Throws: as `check(_:)` (before any key is derived), then `.wrongPassphrase`, `.damaged`, `.crypto`.
    public static func open(_ archive: [UInt8], passphrase: [UInt8]) throws(BackupError) -> [UInt8] {
        let header = try header(of: archive)
        let keys: (key: [UInt8], check: [UInt8])
        do {
            keys = try derive(passphrase, salt: header.salt, parameters: header.parameters)
        } catch {
            throw .crypto(error)
        }
        guard ConstantTime.equals(keys.check, header.check) else { throw .wrongPassphrase }
        do {
            return try ChaCha20Poly1305.open(
                Array(archive[headerLength...]), key: keys.key, nonce: header.nonce,
                aad: Array(archive[..<headerLength]))
        } catch {
            throw .damaged(reason: "its content does not match its authentication tag")
        }
    }

    /// What the header of an archive says.
    struct Header {
        var parameters: Scrypt.Parameters
        var salt: [UInt8]
        var nonce: [UInt8]
        var check: [UInt8]
    }

    /// The header of `archive`, once it and the archive's length are found sound.
    static func header(of archive: [UInt8]) throws(BackupError) -> Header {
        guard archive.starts(with: magic) else {
            throw magic.starts(with: archive) ? .truncated(actual: archive.count, expected: headerLength) : .notABackup
        }
        var reader = ByteReader(archive, from: magic.count)
        guard let version = reader.uint16() else { throw .truncated(actual: archive.count, expected: headerLength) }
        // Checked before the rest of the header: a newer format may lay it out differently.
        guard version <= formatVersion else { throw .newerFormat(version: Int(version), supported: formatVersion) }
        guard archive.count >= headerLength else { throw .truncated(actual: archive.count, expected: headerLength) }
        guard version >= 1 else { throw .damaged(reason: "format version 0") }
        guard reader.byte() == scryptID else { throw .damaged(reason: "an unknown key derivation") }
        let parameters = Scrypt.Parameters(logN: reader.byte()!, r: reader.uint32()!, p: reader.uint32()!)
        guard parameters.isUsable else { throw .damaged(reason: "impossible key derivation parameters \(parameters)") }
        let salt = reader.bytes(saltLength)!
        guard reader.byte() == chacha20Poly1305ID else { throw .damaged(reason: "an unknown cipher") }
        let header = Header(
            parameters: parameters, salt: salt, nonce: reader.bytes(ChaCha20Poly1305.nonceLength)!,
            check: reader.bytes(checkLength)!)
        let length = reader.uint64()!
        guard length >= ChaCha20Poly1305.tagLength, length <= maximumPayload + ChaCha20Poly1305.tagLength else {
            throw .damaged(reason: "an impossible length")
        }
        let expected = headerLength + Int(length)
        guard archive.count >= expected else { throw .truncated(actual: archive.count, expected: expected) }
        guard archive.count == expected else {
            throw .damaged(reason: "\(archive.count - expected) bytes follow its end")
        }
        return header
    }

    /// The cipher key and the passphrase check scrypt gives for `passphrase` and `salt`.
    static func derive(_ passphrase: [UInt8], salt: [UInt8], parameters: Scrypt.Parameters) throws(CryptoError)
        -> (key: [UInt8], check: [UInt8])
    {
        let derived = try Scrypt.derive(
            passphrase: passphrase, salt: salt, parameters: parameters,
            length: ChaCha20Poly1305.keyLength + checkLength)
        return (Array(derived[..<ChaCha20Poly1305.keyLength]), Array(derived[ChaCha20Poly1305.keyLength...]))
    }
}

/// Reads big-endian fields from a byte array; nil past its end.
private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func byte() -> UInt8? { bytes(1)?.first }
    mutating func uint16() -> UInt16? { integer() }
    mutating func uint32() -> UInt32? { integer() }
    mutating func uint64() -> UInt64? { integer() }

    private mutating func integer<T: FixedWidthInteger & UnsignedInteger>() -> T? {
        bytes(MemoryLayout<T>.size)?.reduce(0) { $0 << 8 | T($1) }
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: (MemoryLayout<T>.size - 1) * 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
