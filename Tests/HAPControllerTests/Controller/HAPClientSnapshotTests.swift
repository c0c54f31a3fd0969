import Foundation
import HAP2MQTTTesting
import HAPController
import HomeModel
import HomeStore
import Testing

/// Camera snapshots with `POST /resource` (docs/hap-notes.md §4.9) from HAP-python's camera, behind a
/// bridge (the `homeassistant` profile: the camera is aid 8).
@Suite("HAP snapshots from HAP-python's camera")
struct HAPClientSnapshotTests {
    @Test(
        "POST /resource brings the camera's JPEG, asked for at the size given; an accessory without a camera is refused and the connection stays"
    )
    func snapshot() async throws {
        let fixture = try await PairedFixture.start(profile: .homeAssistant)
        do {
            let client = try await fixture.client()
            let list = try await client.accessories()
            let camera = try #require(list.accessories.first { $0.information(.Characteristic.name) == "Camera" })
            let image = try await client.snapshot(aid: camera.aid, width: 320, height: 240)
            let sent = try #require(fixture.accessory.snapshotRequests.last)
            #expect(sent.accessory == "Camera" && sent.width == 320 && sent.height == 240, "\(sent)")
            #expect(
                image == [UInt8](try Data(contentsOf: URL(fileURLWithPath: sent.path))),
                "the JPEG as the camera sent it")

            let lamp = try #require(list.accessories.first { $0.information(.Characteristic.name) == "Lamp" })
            await #expect(throws: HAPConnectionError.self) {
                try await client.snapshot(aid: lamp.aid, width: 320, height: 240)
            }
            let on = try characteristicID(list, accessory: "Lamp", "On")
            #expect(try await client.read([on])[on]?.status.isSuccess == true, "the connection still answers")
            await client.connection.close()
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}
