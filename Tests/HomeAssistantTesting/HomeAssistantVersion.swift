import Foundation
import HAP2MQTTTesting

/// A release of Home Assistant the discovery tests run against, and where its Python is.
///
/// `scripts/test` installs both: 2024.3.3 (the newest that installs on Debian 12's Python 3.11) into the
/// `.venv-ha` venv, and 2026.11.0 (Python >= 3.14.2) into a venv inside a Debian unstable chroot, whose
/// Python `scripts/lib/homeassistant-2026-python` runs. A test run uses one of them,
/// `HAP2MQTT_TEST_HA_VERSION`; `scripts/test` runs the Home Assistant suites once per version.
public enum HomeAssistantVersion: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 2024.3.3: reads a payload's `object_id`, the HTTP settings from configuration.yaml.
    case v2024 = "2024.3.3"
    /// 2026.11.0: reads a payload's `default_entity_id` (ignores `object_id`), the HTTP settings from
    /// `.storage/http`.
    case v2026 = "2026.11.0"

    /// The version of this test run: `HAP2MQTT_TEST_HA_VERSION` (`2024.3.3` or `2026.11.0`; `2024.3` and
    /// `2026.11` too), else 2024.3.3. An unknown value stops the run, so no suite passes on a version
    /// that did not run.
    public static let current: HomeAssistantVersion = {
        guard let value = ProcessInfo.processInfo.environment["HAP2MQTT_TEST_HA_VERSION"], !value.isEmpty else {
            return .v2024
        }
        guard let version = allCases.first(where: { $0.rawValue == value || $0.rawValue.hasPrefix(value + ".") })
        else {
            fatalError("HAP2MQTT_TEST_HA_VERSION=\(value) is none of \(allCases.map(\.rawValue))")
        }
        return version
    }()

    public var description: String { "Home Assistant \(rawValue)" }

    /// The discovery format the tests give the gateway for this version (`homeassistant.discovery_format`):
    /// `entity` for 2024.3, which logs "Integration device is not supported" for device-based configs;
    /// `device`, the default of a new installation, for 2026.11.
    public var discoveryFormat: String {
        switch self {
        case .v2024: "entity"
        case .v2026: "device"
        }
    }

    /// The environment that gives `hap2mqtt run` this version's discovery format.
    public var gatewayEnvironment: [String: String] { ["HAP2MQTT_HOMEASSISTANT_DISCOVERY_FORMAT": discoveryFormat] }

    /// The environment variable with the path of this version's Python.
    public var pythonVariable: String {
        switch self {
        case .v2024: "HAP2MQTT_TEST_HA_PYTHON"
        case .v2026: "HAP2MQTT_TEST_HA2026_PYTHON"
        }
    }

    /// This version's Python: `pythonVariable`, else `<repo>/.venv-ha/bin/python` (2024.3) or
    /// `<repo>/scripts/lib/homeassistant-2026-python` (2026.11; it fails with "no chroot … run scripts/test"
    /// without the chroot `<repo>/.chroot-ha2026`).
    /// - Throws: `TestSupportError.toolMissing` when it does not exist.
    public func python() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let fallback =
            switch self {
            case .v2024: ".venv-ha/bin/python"
            case .v2026: "scripts/lib/homeassistant-2026-python"
            }
        let python =
            ProcessInfo.processInfo.environment[pythonVariable] ?? root.appendingPathComponent(fallback).path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSupportError.toolMissing(
                "\(self) not found (looked for \(python)): this test starts Home Assistant; "
                    + "HAP2MQTT_TEST_HA=1 scripts/test --filter <the test> makes it and runs it")
        }
        return python
    }
}
