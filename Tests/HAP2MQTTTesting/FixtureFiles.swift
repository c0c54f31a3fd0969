import Foundation

/// Test data kept beside the Python fixture, in `Tests/Fixtures`.
public enum FixtureFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The `/accessories` body the HAP-python fixture (Tests/Fixtures/hap_fixture.py) sent to aiohomekit 4.0.1
    /// after pairing, captured byte for byte.
    public static func hapPythonAccessories() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent("hap-python-accessories.json")))
    }
}
