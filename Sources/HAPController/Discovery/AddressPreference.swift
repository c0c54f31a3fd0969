#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which announced addresses of an accessory to try, in which order (docs/hap-notes.md §5; aiohomekit skips
/// link-local and unspecified addresses, HA core#34092 shows an accessory announcing 169.254.x.x):
/// IPv4 first, then IPv6; link-local (169.254/16, fe80::/10), unspecified and multicast addresses left
/// out, as is anything that is no IP address. So IPv6 is used when that is all there is.
enum AddressPreference {
    /// The most addresses kept: an accessory has one or two.
    static let maximumAddresses = 8

    /// `addresses` filtered and ordered, without repeats.
    static func ordered(_ addresses: [String]) -> [String] {
        var v4: [String] = []
        var v6: [String] = []
        for address in addresses {
            switch classify(address) {
            case .ipv4(let canonical) where !v4.contains(canonical): v4.append(canonical)
            case .ipv6(let canonical) where !v6.contains(canonical): v6.append(canonical)
            default: break
            }
        }
        return Array((v4 + v6).prefix(maximumAddresses))
    }

    private enum Kind {
        case ipv4(String)
        case ipv6(String)
        case unusable
    }

    /// The family of `address` and its canonical text, or `.unusable`.
    private static func classify(_ address: String) -> Kind {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4) { Array($0) }
            let linkLocal = bytes[0] == 169 && bytes[1] == 254
            let unusable = bytes[0] == 0 || bytes[0] >= 224 || linkLocal
            return unusable ? .unusable : .ipv4(text(AF_INET, bytes))
        }
        var v6 = in6_addr()
        // A scope (`%eth0`) only comes with link-local addresses, which are left out anyway.
        if !address.contains("%"), inet_pton(AF_INET6, address, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            let linkLocal = bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
            let multicast = bytes[0] == 0xFF
            let unspecified = bytes.allSatisfy { $0 == 0 }
            return linkLocal || multicast || unspecified ? .unusable : .ipv6(text(AF_INET6, bytes))
        }
        return .unusable
    }

    /// The canonical text of an address of `family` given as its bytes in network order.
    private static func text(_ family: Int32, _ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
