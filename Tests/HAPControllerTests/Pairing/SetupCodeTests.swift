import HAPController
import Testing

@Suite("Setup codes")
struct SetupCodeTests {
    @Test(
        "XXX-XX-XXX and 8 digits are accepted and kept with dashes",
        arguments: [
            ("031-45-154", "031-45-154"), ("03145154", "031-45-154"), ("  123-45-679\n", "123-45-679"),
        ])
    func accepts(text: String, dashed: String) throws {
        #expect(try SetupCode(text).dashed == dashed)
    }

    @Test(
        "anything else is refused with a message that shows the format",
        arguments: [
            "", "1234567", "123456789", "123-456-78", "12-345-678", "abc-de-fgh", "123 45 678", "１２３-45-678",
            "123-45-67a",
        ])
    func refuses(text: String) {
        #expect(throws: PairingError.invalidSetupCode) { try SetupCode(text) }
        #expect(PairingError.invalidSetupCode.description.contains("XXX-XX-XXX"))
    }

    @Test("codes the specification forbids are flagged, not refused")
    func forbidden() throws {
        #expect(try SetupCode("111-11-111").isForbiddenBySpecification)
        #expect(try SetupCode("12345678").isForbiddenBySpecification)
        #expect(try SetupCode("876-54-321").isForbiddenBySpecification)
        #expect(try !SetupCode("031-45-154").isForbiddenBySpecification)
        #expect(SetupCode.forbiddenCodes.count == 12)
    }

    @Test("a setup code never prints its digits")
    func redacted() throws {
        let code = try SetupCode("031-45-154")
        #expect(!"\(code)".contains("031"))
        #expect(!String(reflecting: code).contains("031"))
        var dumped = ""
        dump(code, to: &dumped)
        #expect(!dumped.contains("031"))
    }
}
