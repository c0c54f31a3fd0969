/// A small seeded generator (SplitMix64) so random tests reproduce from the seed they print.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes, eight from each `next()`: one generic `UInt8.random` per byte made the fuzz
    /// suites' inputs (megabytes in a debug build) the slowest part of the whole test run.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            let word = next()
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        out.removeLast(out.count - count)
        return out
    }
}

/// Ways of breaking a valid input, for the fuzz tests of the parsers (JSON, HTTP, TLV8).
public enum Mutation {
    /// Bytes JSON and HTTP give meaning to, so that mutations reach deep into the parsers.
    public static let alphabet =
        Array(#"{}[]",:0123456789-+.eEtrufalsn \\/u\r\n:HTTPEVNTO"#.utf8) + [
            0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0xED, 0xA0,
        ]

    /// `count` bytes, each from `alphabet` or any byte with even odds.
    public static func randomBytes(count: Int, using g: inout SeededGenerator) -> [UInt8] {
        // One `next()` a byte: its low bit chooses, the rest picks (generic helpers per byte were slow).
        (0..<count).map { _ in
            let word = g.next()
            return word & 1 == 0
                ? alphabet[Int((word >> 8) % UInt64(alphabet.count))] : UInt8(truncatingIfNeeded: word >> 32)
        }
    }

    /// `input` with a few bytes flipped, inserted, deleted or duplicated, or cut short.
    public static func mutate(_ input: [UInt8], using g: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            guard !bytes.isEmpty else { return randomBytes(count: 8, using: &g) }
            let at = Int.random(in: 0..<bytes.count, using: &g)
            switch Int.random(in: 0..<6, using: &g) {
            case 0: bytes[at] = alphabet.randomElement(using: &g) ?? 0
            case 1: bytes[at] = UInt8.random(in: 0...255, using: &g)
            case 2: bytes.insert(contentsOf: randomBytes(count: Int.random(in: 1...6, using: &g), using: &g), at: at)
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &g)))
            case 4: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 16)], at: at)
            default: bytes = Array(bytes[..<at])
            }
        }
        return bytes
    }
}
