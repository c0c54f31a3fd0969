/// The two ChaCha20-Poly1305 keys of an encrypted HAP session, derived at the end of pair-verify
/// (HAP spec §5.7.2 and §6.5.2; docs/hap-notes.md §2). `description` never shows them.
public struct SessionKeys: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The controller→accessory key: the controller encrypts with it ("Control-Write-Encryption-Key").
    public let controllerToAccessory: [UInt8]
    /// The accessory→controller key: the controller decrypts with it ("Control-Read-Encryption-Key").
    public let accessoryToController: [UInt8]

    /// Keys given directly (32 bytes each). Throws `CryptoError.invalidLength` otherwise.
    public init(controllerToAccessory: [UInt8], accessoryToController: [UInt8]) throws(CryptoError) {
        try OpenSSL.requireLength(controllerToAccessory, ChaCha20Poly1305.keyLength, "controller-to-accessory key")
        try OpenSSL.requireLength(accessoryToController, ChaCha20Poly1305.keyLength, "accessory-to-controller key")
        self.controllerToAccessory = controllerToAccessory
        self.accessoryToController = accessoryToController
    }

    /// The keys HAP derives from pair-verify's X25519 shared secret: HKDF-SHA512 with salt "Control-Salt" and
    /// info "Control-Write-Encryption-Key" (controller→accessory) or "Control-Read-Encryption-Key"
    /// (accessory→controller), 32 bytes each.
    public init(sharedSecret: [UInt8]) throws(CryptoError) {
        try self.init(
            controllerToAccessory: HKDF.sha512(
                key: sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key"),
            accessoryToController: HKDF.sha512(
                key: sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key"))
    }

    public var description: String { "SessionKeys(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: []) }
}
