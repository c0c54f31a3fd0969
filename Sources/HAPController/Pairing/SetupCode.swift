import Foundation

/// An accessory's 8-digit setup code, kept as `XXX-XX-XXX` (the form SRP hashes as the password, HAP spec
/// §5.6.2; docs/hap-notes.md §1.5). `description` never shows the digits: codes do not belong in logs.
public struct SetupCode: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The code as `XXX-XX-XXX`.
    public let dashed: String

    /// Reads `XXX-XX-XXX` or 8 digits without dashes (dashes are inserted); surrounding white space is
    /// ignored. Throws `PairingError.invalidSetupCode` for anything else.
    public init(_ text: String) throws(PairingError) {
        let trimmed = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        let digits: [UInt8]
        if trimmed.count == 8, trimmed.allSatisfy(isDigit) {
            digits = trimmed
        } else if trimmed.count == 10, trimmed[3] == 0x2D, trimmed[6] == 0x2D {
            digits = Array(trimmed[0..<3] + trimmed[4..<6] + trimmed[7..<10])
            guard digits.allSatisfy(isDigit) else { throw .invalidSetupCode }
        } else {
            throw .invalidSetupCode
        }
        dashed = String(decoding: digits[0..<3] + [0x2D] + digits[3..<5] + [0x2D] + digits[5..<8], as: UTF8.self)
    }

    /// The codes the HAP specification forbids accessories to use (§5.6.2: trivial and sequential codes).
    /// Some DIY firmware ships with one anyway (esp-homekit's 111-11-111), so callers warn rather than refuse.
    public static let forbiddenCodes: Set<String> = [
        "000-00-000", "111-11-111", "222-22-222", "333-33-333", "444-44-444", "555-55-555",
        "666-66-666", "777-77-777", "888-88-888", "999-99-999", "123-45-678", "876-54-321",
    ]

    /// True when the code is one the specification forbids (see `forbiddenCodes`): worth a warning.
    public var isForbiddenBySpecification: Bool { Self.forbiddenCodes.contains(dashed) }

    public var description: String { "***-**-***" }
    public var debugDescription: String { "SetupCode(***-**-***)" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}
