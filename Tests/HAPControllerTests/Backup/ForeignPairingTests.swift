import Foundation
import JSON
import Testing

@testable import HAPController

@Suite("Pairing data of aiohomekit and Home Assistant: read, skipped with the reason, written back")
struct ForeignPairingTests {
    /// aiohomekit's pairing data for a controller with the RFC 8032 test 1 key (seed 9d61…7f60, public key
    /// d75a…511a) and an accessory whose key is RFC 8032 test 2's public key.
    static let data: JSONValue = [
        "AccessoryPairingID": "6B:E5:85:49:16:AC",
        "AccessoryLTPK": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "iOSPairingId": "1B0C8A7E-2C4D-4B1D-9E1A-2F5F0E9C7A11",
        "iOSDeviceLTSK": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "iOSDeviceLTPK": "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "AccessoryIP": "192.168.1.20", "AccessoryIPs": ["192.168.1.20"], "AccessoryPort": 51826, "Connection": "IP",
    ]

    @Test("an IP pairing keeps the other controller's identity, whose key must match its public key")
    func ipPairing() throws {
        let foreign = ForeignPairing(name: "Lamp", data: Self.data)
        guard case .ip(let pairing) = foreign.kind else {
            Issue.record("not taken over: \(foreign.kind)")
            return
        }
        #expect(pairing.accessoryPairingID == "6B:E5:85:49:16:AC")
        #expect(pairing.host == "192.168.1.20" && pairing.port == 51826 && pairing.name == "Lamp")
        #expect(pairing.controllerPairingID == "1B0C8A7E-2C4D-4B1D-9E1A-2F5F0E9C7A11")
        #expect(
            hex(pairing.controller?.publicKey ?? [])
                == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        // The stored form keeps the keys, reads back the same, and its description shows none.
        #expect(try Pairing(json: pairing.json) == pairing)
        #expect(!"\(pairing)".contains("nWGx") && !String(reflecting: pairing).contains("9d61"))

        var mismatched = Self.data
        if case .object(var object) = mismatched {
            object.append("iOSDeviceLTPK", .string(String(repeating: "00", count: 32)))
            mismatched = .object(object)
        }
        #expect(
            ForeignPairing(name: "Lamp", data: mismatched).kind
                == .skipped(
                    reason:
                        #"its pairing data cannot be read ("iOSDeviceLTPK": the public key does not belong to iOSDeviceLTSK)"#
                ))
    }

    @Test("BLE, Thread and unknown connections are skipped with the reason; missing members are named, not shown")
    func skipped() {
        let ble: JSONValue = ["AccessoryPairingID": "11:22:33:44:55:66", "Connection": "BLE"]
        #expect(
            ForeignPairing(name: "Sensor", data: ble).kind
                == .skipped(reason: "a Bluetooth (BLE) accessory: hap2mqtt speaks HAP over IP only"))
        #expect(ForeignPairing(name: "Sensor", data: ble).accessoryPairingID == "11:22:33:44:55:66")
        #expect(
            ForeignPairing(name: "Strip", data: ["Connection": "CoAP"]).kind
                == .skipped(reason: "a Thread accessory (HAP over CoAP): hap2mqtt speaks HAP over IP only"))
        #expect(
            ForeignPairing(name: "X", data: ["Connection": "Fake"]).kind
                == .skipped(reason: #"its connection "Fake" is not HAP over IP"#))
        // No Connection is IP, as aiohomekit reads it; then the missing key is the reason.
        #expect(
            ForeignPairing(name: "Old", data: ["AccessoryPairingID": "AA"]).kind
                == .skipped(reason: #"its pairing data cannot be read (no "iOSPairingId")"#))
    }

    @Test("Home Assistant's config entries: only HomeKit Controller's, in order; another store is refused")
    func homeAssistantStore() throws {
        let store: JSONValue = [
            "version": 1, "minor_version": 2, "key": "core.config_entries",
            "data": [
                "entries": [
                    ["domain": "mqtt", "title": "Mosquitto", "data": ["broker": "x"]],
                    ["domain": "homekit_controller", "title": "Lamp", "data": Self.data],
                    ["domain": "homekit_controller", "title": "Sensor", "data": ["Connection": "BLE"]],
                ]
            ],
        ]
        let pairings = try ForeignPairing.homeAssistantEntries(store)
        #expect(pairings.map(\.name) == ["Lamp", "Sensor"])
        #expect(throws: JSONFieldError.self) {
            try ForeignPairing.homeAssistantEntries(["key": "core.device_registry", "data": [:]])
        }
        #expect(throws: JSONFieldError.wrongType("key")) { try ForeignPairing.aiohomekitFile(["key": "x"]) }
        #expect(try ForeignPairing.aiohomekitFile(["Lamp": Self.data]).map(\.name) == ["Lamp"])
    }

    @Test("export writes aiohomekit's members back: the same data that was read, keys as lower-case hex")
    func export() throws {
        guard case .ip(let pairing) = ForeignPairing(name: "Lamp", data: Self.data).kind else {
            Issue.record("not taken over")
            return
        }
        let other = try ControllerIdentity.generate()
        let file = AiohomekitPairingData.file(for: [pairing], identity: other)
        #expect(file["Lamp"] == Self.data, "a pairing with its own controller exports that controller")
        var own = pairing
        own.controller = nil
        own.controllerPairingID = other.pairingID
        let exported = AiohomekitPairingData.file(for: [own], identity: other)
        #expect(exported["Lamp"]?["iOSPairingId"] == .string(other.pairingID))
        #expect(exported["Lamp"]?["iOSDeviceLTSK"] == .string(hex(other.seed)))
    }
}
