import Testing

@testable import HomeModel

/// The words the web page shows for the catalog's types, values and units.
@Suite("catalog labels")
struct CatalogLabelTests {
    @Test("services and characteristics by the words people use; others split into words")
    func labels() throws {
        let type = { (short: String) throws -> HAPType in try #require(HAPType(short)) }
        #expect(HAPCatalog.serviceLabel(try type("43")) == "Light")
        #expect(HAPCatalog.serviceLabel(try type("8C")) == "Blind")
        #expect(HAPCatalog.serviceLabel(try type("3E")) == "Accessory information")
        #expect(HAPCatalog.serviceLabel(try type("D0")) == "Valve")
        #expect(HAPCatalog.characteristicLabel(try type("F")) == "Heating or cooling")
        #expect(HAPCatalog.characteristicLabel(try type("30")) == "Serial number")
        #expect(HAPCatalog.characteristicLabel(try type("C9")) == "Relative humidity dehumidifier threshold")
        #expect(HAPCatalog.characteristicLabel(try type("C6")) == "PM2.5 density")
        let vendor = try type("12345678-0000-1000-8000-0026BB765291")
        #expect(HAPCatalog.characteristicLabel(vendor) == vendor.shortForm)
    }

    @Test("enumerated values: the table's words where it has them, the catalog's names as words elsewhere")
    func values() throws {
        #expect(
            HAPCatalog.valueLabels(try #require(HAPType("1D"))) == [
                0: "Unlocked", 1: "Locked", 2: "Jammed", 3: "Unknown",
            ])
        #expect(HAPCatalog.valueLabels(try #require(HAPType("6A"))) == [0: "Closed", 1: "Open"])
        let lastAction = HAPCatalog.valueLabels(try #require(HAPType("1C")))
        #expect(lastAction[2] == "Secured physically, exterior")
        #expect(lastAction[8] == "Secured by auto secure timeout")
        #expect(HAPCatalog.valueLabels(try #require(HAPType("69")))[1] == "Too high")
        #expect(HAPCatalog.valueLabels(try #require(HAPType("B4")))[0] == "Humidifier or dehumidifier")
        #expect(HAPCatalog.valueLabels(try #require(HAPType("92")))[0] == "Normal")
        #expect(HAPCatalog.valueLabels(try #require(HAPType("8"))).isEmpty)
        #expect(LabelWords.words("CO2LevelsAbnormal") == "CO2 levels abnormal")
        #expect(LabelWords.words("HDMI") == "HDMI")
    }

    @Test("units as people write them after a number")
    func units() {
        #expect(HAPCatalog.unitSymbol("celsius") == "°C")
        #expect(HAPCatalog.unitSymbol("percentage") == "%")
        #expect(HAPCatalog.unitSymbol("lux") == "lx")
        #expect(HAPCatalog.unitSymbol("furlongs") == "furlongs")
    }
}
