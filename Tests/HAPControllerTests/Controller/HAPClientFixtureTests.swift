import HAP2MQTTTesting
import HAPController
import HomeModel
import HomeStore
import Logging
import Testing

/// The accessory whose `name` is one of the fixture's (`Light`, `Lock`, …), and the id of its
/// characteristic of catalog type `characteristic` (`Brightness`), found by type as lesson 2 asks.
func characteristicID(_ list: HAPAccessoryList, accessory name: String, _ characteristic: String) throws
    -> HAPCharacteristicID
{
    let type = try #require(HAPCatalog.characteristic(named: characteristic)?.type, "no catalog type \(characteristic)")
    let accessory = try #require(
        list.accessories.first { $0.information(.Characteristic.name) == name }, "no accessory \(name)")
    let found = try #require(accessory.allCharacteristics.first { $0.type == type }, "\(name) has no \(characteristic)")
    return HAPCharacteristicID(aid: accessory.aid, iid: found.iid)
}

/// Reads, writes, timed writes, events and pairings over a pair-verified session with HAP-python.
@Suite("HAP client with HAP-python", .pairedFixture, .serialized)
struct HAPClientFixtureTests {
    @Test("GET /accessories gives the bridge and its six accessories with their services and characteristics")
    func accessoryTree() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let list = try await client.accessories()
        #expect(list.problems.isEmpty)
        let names = list.accessories.map { $0.information(.Characteristic.name) ?? "?" }
        #expect(names == ["hap2mqtt Test Bridge", "Light", "Switch", "Temperature", "Lock", "Thermostat", "Blind"])
        #expect(list.accessories.map(\.aid) == [1, 2, 3, 4, 5, 6, 8])
        #expect(list.accessories.allSatisfy { $0.id.serverID == fixture.pairing.accessoryPairingID })

        func serviceTypes(_ aid: Int) -> [String] {
            list.accessories.first { $0.aid == aid }?.services.map {
                HAPCatalog.service($0.type)?.name ?? $0.type.description
            } ?? []
        }
        #expect(serviceTypes(1) == ["AccessoryInformation", "HAPProtocolInformation"])
        #expect(serviceTypes(2) == ["AccessoryInformation", "Lightbulb"])
        #expect(serviceTypes(3) == ["AccessoryInformation", "Switch"])
        #expect(serviceTypes(4) == ["AccessoryInformation", "TemperatureSensor"])
        #expect(serviceTypes(5) == ["AccessoryInformation", "LockMechanism"])
        #expect(serviceTypes(6) == ["AccessoryInformation", "Thermostat"])
        #expect(serviceTypes(8) == ["AccessoryInformation", "WindowCovering"])

        let light = try #require(list.accessories.first { $0.aid == 2 }?.service(ofType: .Service.lightbulb))
        #expect(
            light.characteristics.map { HAPCatalog.characteristic($0.type)?.name ?? "?" }
                == ["On", "Brightness", "Hue", "Saturation", "ColorTemperature"])
        let brightness = try #require(light.characteristic(ofType: .Characteristic.brightness))
        #expect(brightness.format == .int && brightness.unit == "percentage" && brightness.maxValue == 100)
        #expect(brightness.permissions == [.pairedRead, .pairedWrite, .events])
        let lock = try characteristicID(list, accessory: "Lock", "LockTargetState")
        let target = try #require(
            list.accessories.first { $0.aid == lock.aid }?.characteristic(iid: lock.iid)?.characteristic)
        #expect(target.permissions.contains(.timedWrite))
        await client.connection.close()
    }

    @Test("reads return the accessory's values, and a status for a characteristic it does not have")
    func reads() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let list = try await client.accessories()
        try await fixture.accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(23.5))
        try await fixture.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
        let temperature = try characteristicID(list, accessory: "Temperature", "CurrentTemperature")
        let brightness = try characteristicID(list, accessory: "Light", "Brightness")
        let name = try characteristicID(list, accessory: "Blind", "Name")

        let results = try await client.read([temperature, brightness, name])
        #expect(try results[temperature]?.value(format: .float) == .float(23.5))
        #expect(try results[brightness]?.value(format: .int) == .int(42))
        #expect(try results[name]?.value(format: .string) == .string("Blind"))
        #expect(results.values.allSatisfy { $0.status == .success })

        // HAP-python leaves accessories it does not have out of the answer.
        let missing = HAPCharacteristicID(aid: 99, iid: 9)
        let partly = try await client.read([missing, brightness])
        #expect(partly[missing]?.status == .resourceDoesNotExist && partly[brightness]?.value == 42)
        await client.connection.close()
    }

    @Test("writes reach the accessory: its setter runs with each value, and a read gives it back")
    func writes() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let list = try await client.accessories()
        let on = try characteristicID(list, accessory: "Light", "On")
        let brightness = try characteristicID(list, accessory: "Light", "Brightness")
        let target = try characteristicID(list, accessory: "Thermostat", "TargetTemperature")
        let before = fixture.accessory.setterCalls.count

        let results = try await client.write([
            HAPCharacteristicWriteItem(id: on, value: .bool(true)),
            HAPCharacteristicWriteItem(id: brightness, value: 77),
            try HAPCharacteristicWriteItem(id: target, value: .float(22.5), format: .float),
        ])
        #expect(results.count == 3 && results.values.allSatisfy { $0.status == .success })
        let calls = Array(try await fixture.accessory.waitForSetterCalls(count: before + 3).dropFirst(before))
        #expect(
            Set(calls) == [
                .init(accessory: "Light", characteristic: "On", value: .bool(true), timed: false),
                .init(accessory: "Light", characteristic: "Brightness", value: .int(77), timed: false),
                .init(accessory: "Thermostat", characteristic: "TargetTemperature", value: .float(22.5), timed: false),
            ])
        let read = try await client.read([on, brightness])
        #expect(read[on]?.value == true && read[brightness]?.value == 77)
        await client.connection.close()
    }

    @Test("a timed write to the lock's target state goes through PUT /prepare with the same pid")
    func timedWrite() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let target = try characteristicID(try await client.accessories(), accessory: "Lock", "LockTargetState")
        let prepares = fixture.accessory.prepareRequests.count
        let before = fixture.accessory.setterCalls.count

        let results = try await client.write([HAPCharacteristicWriteItem(id: target, value: 1)], timed: true)
        #expect(results[target]?.status == .success)
        let calls = try await fixture.accessory.waitForSetterCalls(count: before + 1)
        #expect(calls.last == .init(accessory: "Lock", characteristic: "LockTargetState", value: .int(1), timed: true))
        let prepare = try #require(fixture.accessory.prepareRequests.dropFirst(prepares).first)
        #expect(prepare.ttl == 5000)
        #expect(prepare.pid != 0)
        #expect(try await fixture.accessory.value(accessory: "Lock", characteristic: "LockCurrentState") == .int(1))
        await client.connection.close()
    }

    @Test("a write the accessory refuses returns its HAP status and leaves the value; others in the request succeed")
    func refusedWrite() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let list = try await client.accessories()
        let position = try characteristicID(list, accessory: "Blind", "TargetPosition")
        let on = try characteristicID(list, accessory: "Switch", "On")
        try await fixture.accessory.setValue(accessory: "Blind", characteristic: "TargetPosition", value: .int(10))
        try await fixture.accessory.failWrites(
            accessory: "Blind", characteristic: "TargetPosition", status: .invalidValueInRequest)

        // The fixture is shared with other tests, which may have had writes refused before.
        let refusedBefore = fixture.accessory.rejectedWrites.count
        let results = try await client.write([
            HAPCharacteristicWriteItem(id: position, value: 60), HAPCharacteristicWriteItem(id: on, value: true),
        ])
        try await fixture.accessory.failWrites(accessory: "Blind", characteristic: "TargetPosition", status: nil)
        #expect(results[position]?.status == .invalidValueInRequest)
        #expect(results[on]?.status == .success, "the other write of the same request went through")
        #expect(
            try await fixture.accessory.waitForRejectedWrites(count: refusedBefore + 1).last
                == .init(
                    accessory: "Blind", characteristic: "TargetPosition", value: .int(60),
                    status: .invalidValueInRequest))
        #expect(try await fixture.accessory.value(accessory: "Blind", characteristic: "TargetPosition") == .int(10))
        await client.connection.close()
    }

    @Test("subscribed characteristics send events when the accessory changes them; unsubscribed ones do not")
    func events() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let list = try await client.accessories()
        let on = try characteristicID(list, accessory: "Switch", "On")
        let temperature = try characteristicID(list, accessory: "Temperature", "CurrentTemperature")
        try await fixture.accessory.setValue(accessory: "Switch", characteristic: "On", value: .bool(false))

        let subscribed = try await client.subscribe([on, temperature])
        #expect(subscribed.count == 2 && subscribed.values.allSatisfy { $0.status == .success })

        var events = client.events.makeAsyncIterator()
        try await fixture.accessory.setValue(accessory: "Light", characteristic: "Hue", value: .float(120))
        try await fixture.accessory.setValue(accessory: "Switch", characteristic: "On", value: .bool(true))
        try await fixture.accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(19.5))
        #expect(await events.next() == [HAPEventValue(id: on, value: true)])
        #expect(await events.next() == [HAPEventValue(id: temperature, value: 19.5)])

        try await client.subscribe([on], enable: false)
        try await fixture.accessory.setValue(accessory: "Switch", characteristic: "On", value: .bool(false))
        try await fixture.accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(18.5))
        #expect(
            await events.next() == [HAPEventValue(id: temperature, value: 18.5)],
            "no event for the unsubscribed switch, nor for hue")
        await client.connection.close()
    }

    @Test("list pairings shows this controller as the admin; identify of a bridged accessory runs its Identify")
    func pairingsAndIdentify() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let identity = try await fixture.controller.identity()
        let records = try await client.listPairings()
        #expect(
            records == [PairingRecord(pairingID: identity.pairingID, publicKey: identity.publicKey, permissions: 1)])

        let before = fixture.accessory.setterCalls.count
        try await client.identify(aid: 2)
        let calls = try await fixture.accessory.waitForSetterCalls(count: before + 1)
        #expect(calls.last == .init(accessory: "Light", characteristic: "Identify", value: .bool(true), timed: false))
        try await client.identify()
        await #expect(throws: HAPConnectionError.refused(.resourceDoesNotExist, request: "identify of aid 7")) {
            try await client.identify(aid: 7)
        }
        await client.connection.close()
    }

    @Test(
        "an added controller can pair-verify and, as a regular user, may not manage pairings; once removed it is refused"
    )
    func addAndRemovePairing() async throws {
        let fixture = try PairedFixture.shared()
        let client = try await fixture.client()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let guest = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let guestIdentity = try await guest.identity()
        try await client.addPairing(
            pairingID: guestIdentity.pairingID, publicKey: guestIdentity.publicKey, admin: false)
        let records = try await client.listPairings()
        #expect(
            records.contains(
                PairingRecord(pairingID: guestIdentity.pairingID, publicKey: guestIdentity.publicKey, permissions: 0)))
        #expect(records.count == 2)

        var guestPairing = fixture.pairing
        guestPairing.controllerPairingID = guestIdentity.pairingID
        let guestClient = try await guest.connect(to: guestPairing)
        #expect(
            try await guestClient.read([HAPCharacteristicID(aid: 3, iid: 5)])[HAPCharacteristicID(aid: 3, iid: 5)]?
                .value == "Switch")
        await #expect(throws: HAPConnectionError.pairing(.notAdmin)) { try await guestClient.listPairings() }
        await guestClient.connection.close()

        try await client.removePairing(guestIdentity.pairingID)
        #expect(try await client.listPairings().map(\.pairingID) == [try await fixture.controller.identity().pairingID])
        await #expect(throws: HAPControllerError.connection(.pairing(.authenticationFailed))) {
            try await guest.connect(to: guestPairing)
        }
        await client.connection.close()
    }
}
