import HomeModel
import Testing

@testable import HAPController

/// Reading `_hap._tcp` announcements (docs/hap-notes.md §5): keys in any case, bounded and hostile input.
@Suite("DNS-SD announcements of HAP accessories")
struct HAPAdvertisementTests {
    @Test("every TXT key HAP defines is read, in any case; the category is a word; the id is upper-case")
    func fields() throws {
        let instance = ServiceInstance(
            name: "Kitchen Bridge", hostName: "Kitchen-Bridge.local", port: 51826,
            addresses: ["192.168.1.20", "fe80::1", "fd00::20"],
            txt: ["C#=7", "s#=2", "SF=1", "Ci=6", "MD=Smart Lock", "pv=1.1", "ff=2", "Id=aa:bb:cc:dd:ee:0f", "sh=abcd"]
                .map { Array($0.utf8) })
        let a = try HAPAdvertisement(instance)
        #expect(a.id == "AA:BB:CC:DD:EE:0F")
        #expect(a.name == "Kitchen Bridge" && a.hostName == "Kitchen-Bridge.local" && a.port == 51826)
        #expect(a.model == "Smart Lock" && a.protocolVersion == "1.1")
        #expect(a.category == AccessoryCategory(rawValue: 6) && a.category.name == "lock")
        #expect(a.configurationNumber == 7 && a.stateNumber == 2 && a.statusFlags == 1 && a.featureFlags == 2)
        #expect(!a.isPaired)
        #expect(a.addresses == ["192.168.1.20", "fd00::20"], "IPv4 first, link-local left out")
        #expect(a.endpoints.map(\.description) == ["192.168.1.20:51826", "[fd00::20]:51826"])
    }

    @Test("categories are words; numbers HAP does not define are other")
    func categories() {
        #expect(
            [1, 2, 5, 6, 8, 9, 14, 17, 33].map { AccessoryCategory(rawValue: $0).name }
                == [
                    "other", "bridge", "lightbulb", "lock", "switch", "thermostat", "window_covering", "ip_camera",
                    "router",
                ])
        #expect(
            [0, -1, 34, 1000].map { AccessoryCategory(rawValue: $0).name } == ["other", "other", "other", "other"])
    }

    @Test("a TXT record without id, with an id that is no device id, or with port 0 is no accessory")
    func refused() {
        #expect(throws: HAPAdvertisement.Problem.missingID) { try HAPAdvertisement(.hap("A", id: nil, port: 1)) }
        for id in [
            "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FF:00", "AA-BB-CC-DD-EE-FF", "GG:BB:CC:DD:EE:FF", "", "AA:BB:CC:DD:EE:F",
        ] {
            #expect(throws: HAPAdvertisement.Problem.invalidID) { try HAPAdvertisement(.hap("A", id: id, port: 1)) }
        }
        let nonUTF8 = ServiceInstance(
            name: "A", hostName: "a.local", port: 1, addresses: [], txt: [Array("id=".utf8) + [0xFF, 0xFE]])
        #expect(throws: HAPAdvertisement.Problem.invalidID) { try HAPAdvertisement(nonUTF8) }
        #expect(throws: HAPAdvertisement.Problem.invalidPort) {
            try HAPAdvertisement(.hap("A", id: "AA:BB:CC:DD:EE:FF", port: 0))
        }
    }

    @Test(
        "huge, repeated and broken TXT strings are bounded: the first key wins, non-UTF-8 text is no text, numbers must be numbers"
    )
    func hostileTXT() throws {
        let huge = Array("md=".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 100_000)
        let many = (0..<10_000).map { Array("k\($0)=v".utf8) }
        let instance = ServiceInstance(
            name: "Evil\u{0}\u{7}Name" + String(repeating: "n", count: 500), hostName: "h.local", port: 80,
            addresses: ["not an address", "0.0.0.0", "224.0.0.251", "169.254.3.4"],
            txt: [
                Array("id=AA:BB:CC:DD:EE:FF".utf8), Array("id=11:22:33:44:55:66".utf8), huge, Array("c#=12x".utf8),
                Array("s#=99999999999999999999".utf8), [0xFF, 0x3D, 0x31], Array("=5".utf8), [],
                Array("ci=\u{0663}".utf8),
            ] + many
                + [Array("sf=1".utf8)])
        let a = try HAPAdvertisement(instance)
        #expect(a.id == "AA:BB:CC:DD:EE:FF", "the first id wins")
        #expect(a.name.hasPrefix("EvilName") && a.name.count == 63, "control characters dropped, at most 63 characters")
        #expect(a.model?.count == 64)
        #expect(a.configurationNumber == nil && a.stateNumber == nil, "not decimal numbers of at most 9 digits")
        #expect(a.category == .other, "an Arabic-Indic digit is no ASCII digit")
        #expect(a.statusFlags == 0, "sf comes after the first 64 strings: not read")
        #expect(a.addresses.isEmpty)
    }

    @Test(
        "addresses: IPv4 first, link-local, unspecified and multicast left out, repeats removed, IPv6 when that is all")
    func addressOrder() {
        #expect(
            AddressPreference.ordered([
                "fd00::1", "10.0.0.2", "fe80::2", "10.0.0.2", "169.254.1.1", "2001:db8::5", "FE80::3%eth0",
            ])
                == ["10.0.0.2", "fd00::1", "2001:db8::5"])
        #expect(AddressPreference.ordered(["fe80::1", "fd12:3456::0001"]) == ["fd12:3456::1"])
        #expect(AddressPreference.ordered(["::", "ff02::fb", "fe80::9"]).isEmpty)
        #expect(AddressPreference.ordered((1...20).map { "10.0.0.\($0)" }).count == AddressPreference.maximumAddresses)
    }

    @Test("one log line per key per interval; beyond the capacity all further keys share one")
    func logLimiter() {
        var limiter = LogLimiter(interval: .seconds(60), capacity: 3)
        let start = ContinuousClock.now
        var allowed: [Bool] = []
        for (key, seconds) in [("a", 0), ("a", 59), ("a", 60), ("b", 0), ("c", 0), ("d", 61), ("e", 61)] {
            allowed.append(limiter.allows(key, now: start + .seconds(seconds)))
        }
        // A full table forgets keys older than the interval (b and c) to make room for d and e.
        #expect(allowed == [true, false, true, true, true, true, true])
        var overflow = 0
        for n in 0..<100 where limiter.allows("x\(n)", now: start + .seconds(62)) { overflow += 1 }
        #expect(overflow == 1, "a flood of new keys gets one line between them")
    }

    @Test("a line held back is counted, and the next line says how many were")
    func logLimiterCounts() {
        var limiter = LogLimiter(interval: .seconds(60))
        let start = ContinuousClock.now
        var lines: [String?] = []
        for seconds in [0, 1, 2, 3, 61, 62] {
            lines.append(limiter.line("bad event", about: "event", now: start + .seconds(seconds)))
        }
        #expect(lines == ["bad event", nil, nil, nil, "bad event (and 3 more since the last line, not logged)", nil])
    }
}
