import Foundation
import SystemSupport
import Testing

@Suite("UTC time stamps")
struct UTCTimestampTests {
    static func stamp(_ seconds: Double, milliseconds: Bool = true) -> String {
        UTCTimestamp.string(Date(timeIntervalSince1970: seconds), milliseconds: milliseconds)
    }

    @Test("with milliseconds, rounded down, also before 1970")
    func milliseconds() {
        #expect(Self.stamp(0) == "1970-01-01T00:00:00.000Z")
        #expect(Self.stamp(-0.5) == "1969-12-31T23:59:59.500Z")
        #expect(Self.stamp(951_782_400.007) == "2000-02-29T00:00:00.007Z")
    }

    @Test("to the second, rounded down, as Foundation's ISO 8601 formatters write it")
    func seconds() {
        #expect(Self.stamp(1_800_000_000.999, milliseconds: false) == "2027-01-15T08:00:00Z")
        #expect(Self.stamp(-0.5, milliseconds: false) == "1969-12-31T23:59:59Z")
        let date = Date(timeIntervalSince1970: 1_764_676_800)
        #expect(Self.stamp(1_764_676_800, milliseconds: false) == date.formatted(.iso8601))
    }
}
