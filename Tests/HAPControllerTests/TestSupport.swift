@testable import HAPController

/// Bytes from hex text in a test; white space ignored. A malformed literal is a bug in the test itself,
/// so it yields an empty array, which then fails the assertion that uses it.
func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

/// Lower-case hex of bytes, for readable expectations.
func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
