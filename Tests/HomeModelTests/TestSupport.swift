import Testing
import HomeModel

/// The HAP type of a short or long UUID text, failing the test when it is none.
func hapType(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> HAPType {
    try #require(HAPType(text), "not a HAP type: \(text)", sourceLocation: sourceLocation)
}
