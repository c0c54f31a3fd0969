import HomeModel
import Testing

@Suite("HAP types")
struct HAPTypeTests {
    @Test("short, long and dashless forms normalise to one UUID")
    func normalisation() throws {
        let short = try #require(HAPType("25"))
        #expect(short.uuid == "00000025-0000-1000-8000-0026BB765291")
        #expect(HAPType("00000025-0000-1000-8000-0026bb765291") == short)
        #expect(HAPType("0000002500001000800000 26BB765291".replacingOccurrences(of: " ", with: "")) == short)
        #expect(short.shortForm == "25")
        #expect(HAPType("3e")?.shortForm == "3E")
    }

    @Test("vendor UUIDs keep their full form")
    func vendor() throws {
        let t = try #require(HAPType("E863F10A-079E-48FF-8F27-9C2605A29F52"))
        #expect(!t.isAppleDefined)
        #expect(t.shortForm == "E863F10A-079E-48FF-8F27-9C2605A29F52")
    }

    @Test(
        "garbage is not a type",
        arguments: ["", "xyz", "123456789", "00000025-0000-1000-8000-0026BB76529Z", "0000002500"])
    func rejects(_ s: String) { #expect(HAPType(s) == nil) }
}
