import Testing

@testable import HomeModel

@Suite("Validating values before a write")
struct ValueValidationTests {
    private func rule(_ c: Characteristic, _ value: CharacteristicValue) -> ValueError.Rule? {
        valueError { () throws(ValueError) in try c.validate(value, name: "x") }?.rule
    }

    @Test("the value's type must fit the format")
    func types() throws {
        let on = try catalogCharacteristic("25")
        #expect(try on.validate(.bool(true), name: "on") == .bool(true))
        #expect(rule(on, .int(1)) == .wrongType(expected: .bool))
        #expect(rule(on, .string("on")) == .wrongType(expected: .bool))
        let brightness = try catalogCharacteristic("8")
        #expect(try brightness.validate(.float(50), name: "brightness") == .int(50))
        #expect(try brightness.validate(.uint(50), name: "brightness") == .int(50))
        #expect(rule(brightness, .float(50.5)) == .wrongType(expected: .int))
        #expect(rule(brightness, .bool(true)) == .wrongType(expected: .int))
        let target = try catalogCharacteristic("35")
        #expect(try target.validate(.int(21), name: "t") == .float(21))
        #expect(rule(target, .float(.nan)) == .wrongType(expected: .float))
        #expect(rule(target, .string("21")) == .wrongType(expected: .float))
        let name = try catalogCharacteristic("E3")
        #expect(rule(name, .int(5)) == .wrongType(expected: .string))
        let control = try catalogCharacteristic("143")
        #expect(try control.validate(.data([1]), name: "c") == .data([1]))
        #expect(rule(control, .string("AQID")) == .wrongType(expected: .tlv8))
    }

    @Test("integers must fit the format's own range")
    func formatRange() throws {
        let vendor = try hapType("E863F10A-079E-48FF-8F27-9C2605A29F52")
        func plain(_ format: CharacteristicFormat) -> Characteristic {
            Characteristic(iid: 1, type: vendor, format: format, permissions: [.pairedWrite])
        }
        #expect(rule(plain(.uint8), .int(256)) == .outOfFormatRange)
        #expect(rule(plain(.uint8), .int(-1)) == .outOfFormatRange)
        #expect(try plain(.uint8).validate(.int(255), name: "x") == .int(255))
        #expect(rule(plain(.int), .int(Int64(Int32.max) + 1)) == .outOfFormatRange)
        #expect(try plain(.int).validate(.int(Int64(Int32.min)), name: "x") == .int(Int64(Int32.min)))
        #expect(try plain(.uint64).validate(.uint(UInt64.max), name: "x") == .uint(UInt64.max))
        #expect(rule(plain(.uint64), .int(-1)) == .outOfFormatRange)
        #expect(
            valueError { () throws(ValueError) in try plain(.uint16).validate(.int(70000), name: "level") }?.description
                == "level: 70000 does not fit the characteristic's format")
    }

    @Test("numbers must lie within minValue and maxValue; nothing is clamped")
    func range() throws {
        let brightness = try catalogCharacteristic("8")
        let above = try #require(
            valueError { () throws(ValueError) in try brightness.validate(.int(150), name: "brightness") })
        #expect(above.rule == .aboveMaximum(100))
        #expect(above.description == "brightness: 150 is above the maximum 100")
        let below = try #require(
            valueError { () throws(ValueError) in try brightness.validate(.int(-1), name: "brightness") })
        #expect(below.description == "brightness: -1 is below the minimum 0")
        #expect(try brightness.validate(.int(100), name: "brightness") == .int(100))
        #expect(try brightness.validate(.int(0), name: "brightness") == .int(0))
        let target = try catalogCharacteristic("35")
        #expect(rule(target, .float(38.05)) == .aboveMaximum(38))
        #expect(rule(target, .float(9.9)) == .belowMinimum(10))
    }

    @Test(
        "numbers must be a whole number of steps from the minimum, allowing for binary noise",
        arguments: [21.3, 21.0, 10.0, 38.0, 0.1 * 3 + 20, 37.9, 10.1])
    func onStep(_ value: Double) throws {
        let target = try catalogCharacteristic("35")
        #expect(try target.validate(.float(value), name: "t") == .float(value))
    }

    @Test(
        "a value off the step is rounded to the nearest step, and the result is what is written",
        arguments: [(21.36, 21.4), (21.01, 21.0), (10.04, 10.0), (37.96, 38.0), (22.449999, 22.4)])
    func offStep(_ value: Double, _ written: Double) throws {
        let target = try catalogCharacteristic("35")
        #expect(try target.validate(.float(value), name: "target_temperature") == .float(written))
    }

    @Test("integers are rounded to their step as integers: a brightness of 53 with a step of 5 is 55")
    func integerSteps() throws {
        var brightness = try catalogCharacteristic("8")
        brightness.minStep = 5
        #expect(try brightness.validate(.int(53), name: "brightness") == .int(55))
        #expect(try brightness.validate(.int(52), name: "brightness") == .int(50))
        #expect(rule(brightness, .float(52.5)) == .wrongType(expected: .int), "a fraction is no integer, as before")
        var speed = try catalogCharacteristic("29")
        speed.minStep = 25
        #expect(try speed.validate(.int(37), name: "rotation_speed") == .float(25))
        #expect(try speed.validate(.float(37.5), name: "rotation_speed") == .float(50), "a half step goes up")
    }

    @Test(
        "a request above 0 that would round to a minimum of 0 takes the first step: brightness 1 with a step of 25 is 25"
    )
    func neverDownToTheMinimum() throws {
        var brightness = try catalogCharacteristic("8")
        brightness.minStep = 25
        #expect(try brightness.validate(.int(1), name: "brightness") == .int(25))
        #expect(try brightness.validate(.int(12), name: "brightness") == .int(25))
        #expect(try brightness.validate(.int(0), name: "brightness") == .int(0), "0 asked is 0 written")
        #expect(try brightness.validate(.int(13), name: "brightness") == .int(25), "the nearest step, as before")
        #expect(try brightness.validate(.int(99), name: "brightness") == .int(100))
        brightness.minStep = 10
        #expect(try brightness.validate(.int(1), name: "brightness") == .int(10))
        var speed = try catalogCharacteristic("29")
        speed.minStep = 25
        #expect(try speed.validate(.float(0.5), name: "rotation_speed") == .float(25))
        var custom = try catalogCharacteristic("35")  // 10...38 °C
        custom.minStep = 0.5
        #expect(try custom.validate(.float(10.1), name: "t") == .float(10.0), "another minimum is an ordinary value")
        let target = try catalogCharacteristic("35")
        #expect(try target.validate(.float(10.04), name: "t") == .float(10.0))
        var narrow = try catalogCharacteristic("8")
        narrow.maxValue = 20
        narrow.minStep = 25
        #expect(
            try narrow.validate(.int(5), name: "brightness") == .int(0), "no step above the minimum within the maximum")
    }

    @Test("steps count from minValue when there is one, else from 0")
    func stepBase() throws {
        var custom = try catalogCharacteristic("35")
        custom.minValue = 7
        custom.minStep = 0.5
        #expect(try custom.validate(.float(7.5), name: "t") == .float(7.5))
        #expect(try custom.validate(.float(7.7), name: "t") == .float(7.5))
        let rotation = try catalogCharacteristic("11E")
        #expect(try rotation.validate(.float(270), name: "r") == .float(270))
        #expect(try rotation.validate(.float(130), name: "r") == .float(90))
        var noMinimum = try catalogCharacteristic("CE")
        noMinimum.minValue = nil
        noMinimum.minStep = 20
        #expect(try noMinimum.validate(.int(160), name: "c") == .int(160))
        #expect(try noMinimum.validate(.int(169), name: "c") == .int(160))
    }

    @Test(
        "rounding stays within the range: a maximum off the step takes the step below it; outside the range is refused")
    func roundingStaysInRange() throws {
        var odd = try catalogCharacteristic("8")
        odd.maxValue = 99
        odd.minStep = 5
        #expect(try odd.validate(.int(98), name: "brightness") == .int(95))
        #expect(try odd.validate(.int(99), name: "brightness") == .int(95))
        #expect(rule(odd, .int(100)) == .aboveMaximum(99))
        var speed = try catalogCharacteristic("29")
        speed.minStep = 25
        #expect(rule(speed, .int(130)) == .aboveMaximum(100))
        #expect(rule(speed, .int(-1)) == .belowMinimum(0))
    }

    @Test("enumerations accept only their valid values: the accessory's, else the catalog's")
    func validValues() throws {
        let lock = try catalogCharacteristic("1E")
        let error = try #require(
            valueError { () throws(ValueError) in try lock.validate(.int(2), name: "lock_target_state") })
        #expect(error.rule == .notAValidValue([0, 1]))
        #expect(error.description == "lock_target_state: '2' is not one of the valid values 0, 1")
        #expect(try lock.validate(.int(1), name: "lock_target_state") == .int(1))

        var restricted = try catalogCharacteristic("33")
        restricted.validValues = [0, 1]
        #expect(rule(restricted, .int(3)) == .notAValidValue([0, 1]))
        var bare = try catalogCharacteristic("33")
        bare.validValues = nil
        #expect(rule(bare, .int(4)) == .notAValidValue([0, 1, 2, 3]))
        #expect(try bare.validate(.int(3), name: "mode") == .int(3))
    }

    @Test("a valid-values range bounds an enumeration instead of the catalog's list")
    func validValuesRange() throws {
        var mode = try catalogCharacteristic("33")
        mode.validValues = nil
        mode.validValuesRange = 1...2
        #expect(rule(mode, .int(0)) == .belowMinimum(1))
        #expect(rule(mode, .int(3)) == .aboveMaximum(2))
        #expect(try mode.validate(.int(2), name: "mode") == .int(2))
    }

    @Test("strings are at most maxLength UTF-8 bytes, 64 when unset; data at most maxDataLength")
    func lengths() throws {
        var name = try catalogCharacteristic("E3")
        #expect(
            try name.validate(.string(String(repeating: "a", count: 64)), name: "n")
                == .string(String(repeating: "a", count: 64)))
        #expect(rule(name, .string(String(repeating: "a", count: 65))) == .tooLong(maxLength: 64))
        #expect(rule(name, .string(String(repeating: "é", count: 33))) == .tooLong(maxLength: 64))
        name.maxLength = 4
        let error = try #require(
            valueError { () throws(ValueError) in try name.validate(.string("Kitchen"), name: "configured_name") })
        #expect(error.description == "configured_name: 'Kitchen' is longer than 4 bytes")
        var control = try catalogCharacteristic("143")
        control.maxDataLength = 2
        #expect(rule(control, .data([1, 2, 3])) == .tooLong(maxLength: 2))
        #expect(try control.validate(.data([1, 2]), name: "c") == .data([1, 2]))
    }

    @Test("every error message is one line naming the characteristic and the value")
    func oneLine() throws {
        let brightness = try catalogCharacteristic("8")
        for value: CharacteristicValue in [.int(500), .string("x\ny"), .float(0.5), .bool(true)] {
            let error = try #require(
                valueError { () throws(ValueError) in try brightness.validate(value, name: "brightness") })
            #expect(error.description.hasPrefix("brightness: "))
            #expect(!error.description.contains("\n"))
        }
        let text = try #require(
            valueError { () throws(ValueError) in
                try brightness.parseCommand("5\n0\u{7}", current: nil, name: "brightness")
            })
        #expect(text.description == #"brightness: '5\n0\u0007' is not a valid int value"#)
    }

    @Test("values from accessories are brought to the format's normal form")
    func normalized() throws {
        let on = try catalogCharacteristic("25")
        #expect(on.normalized(.int(1)) == .bool(true))
        #expect(on.normalized(.float(0)) == .bool(false))
        #expect(on.normalized(.string("x")) == .string("x"))
        #expect(try catalogCharacteristic("35").normalized(.int(21)) == .float(21))
        #expect(try catalogCharacteristic("8").normalized(.float(50)) == .int(50))
        #expect(try catalogCharacteristic("8").normalized(.uint(50)) == .int(50))
        #expect(try catalogCharacteristic("143").normalized(.string("AQID")) == .data([1, 2, 3]))
        #expect(try catalogCharacteristic("E3").normalized(.string("a")) == .string("a"))
    }

    @Test("MQTT payloads: true/false, plain integers, shortest floats, raw strings, base64 bytes")
    func payloads() {
        #expect(CharacteristicValue.bool(true).mqttPayload == "true")
        #expect(CharacteristicValue.bool(false).mqttPayload == "false")
        #expect(CharacteristicValue.int(-42).mqttPayload == "-42")
        #expect(CharacteristicValue.uint(UInt64.max).mqttPayload == "18446744073709551615")
        #expect(CharacteristicValue.float(21.5).mqttPayload == "21.5")
        #expect(CharacteristicValue.float(21).mqttPayload == "21")
        #expect(CharacteristicValue.float(0.1 + 0.2).mqttPayload == "0.30000000000000004")
        #expect(CharacteristicValue.float(0.0001).mqttPayload == "0.0001")
        #expect(CharacteristicValue.string("Kitchen Lamp").mqttPayload == "Kitchen Lamp")
        #expect(CharacteristicValue.data([1, 2, 3]).mqttPayload == "AQID")
    }
}
