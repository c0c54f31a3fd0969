public import Testing

extension HomeAssistant {
    /// Whether `line` is Home Assistant 2026.11's warning that a doorbell event entity lacks the `ring`
    /// event type ("Entity event.doorbell is a doorbell event entity but does not support the 'ring' event
    /// type. This will stop working in Home Assistant 2027.4"): hap2mqtt's doorbell event entity offers
    /// only single_press, double_press and long_press.
    public static func isDoorbellWithoutRing(_ line: String) -> Bool {
        line.contains("is a doorbell event entity but does not support the 'ring' event type")
    }

    /// Expects `problems()` to be empty: Home Assistant logged no warning or error, deprecations included.
    /// The doorbell warning of 2026.11 (`isDoorbellWithoutRing`), where a doorbell was discovered, is a
    /// known issue on that version (recorded, not failed); on any other version it fails like the rest.
    public func expectNoProblems(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let problems = try await problems()
        let doorbells = problems.filter(Self.isDoorbellWithoutRing)
        let others = problems.filter { !Self.isDoorbellWithoutRing($0) }
        #expect(
            others.isEmpty, "Home Assistant logged problems:\n\(others.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        withKnownIssue("a doorbell event entity has no 'ring' event type (dropped by Home Assistant 2027.4)") {
            #expect(
                doorbells.isEmpty, "Home Assistant warned:\n\(doorbells.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        } when: {
            version == .v2026 && !doorbells.isEmpty
        }
    }
}
