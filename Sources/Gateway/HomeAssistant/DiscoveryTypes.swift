import HomeModel

/// The HAP types the discovery mapping refers to (HAP spec §8 and §9; the catalog holds their metadata).
enum DiscoveryTypes {
    private static func t(_ short: String) -> HAPType { HAPType(short) ?? .Characteristic.name }

    /// Service types with a mapping of their own.
    enum Service {
        static let lightbulb = HAPType.Service.lightbulb
        static let `switch` = HAPType.Service.switch
        static let outlet = HAPType.Service.outlet
        static let lockMechanism = HAPType.Service.lockMechanism
        static let thermostat = HAPType.Service.thermostat
        static let heaterCooler = t("BC")
        static let windowCovering = HAPType.Service.windowCovering
        static let door = t("81")
        static let window = t("8B")
        static let garageDoorOpener = t("41")
        static let fan = t("40")
        static let fanV2 = t("B7")
        static let valve = t("D0")
        static let faucet = t("D7")
        static let securitySystem = t("7E")
        static let statelessProgrammableSwitch = HAPType.Service.statelessProgrammableSwitch
        static let doorbell = HAPType.Service.doorbell
        static let airPurifier = t("BB")
        static let filterMaintenance = t("BA")
        static let humidifierDehumidifier = t("BD")
        static let television = t("D8")
        static let inputSource = t("D9")
        static let speaker = t("113")
        static let cameraRTPStreamManagement = t("110")
        static let temperatureSensor = t("8A")
        static let humiditySensor = t("82")
        /// Services that describe the accessory or the protocol, not something a user controls; and Input
        /// Source, which its Television shows as the options of its input `select`.
        static let skipped: Set<HAPType> = [HAPType.Service.protocolInformation, t("55"), t("CC"), inputSource]
    }

    /// Characteristic types the mappings use.
    enum Characteristic {
        static let on = HAPType.Characteristic.on
        static let brightness = HAPType.Characteristic.brightness
        static let hue = HAPType.Characteristic.hue
        static let saturation = HAPType.Characteristic.saturation
        static let colorTemperature = HAPType.Characteristic.colorTemperature
        static let identify = HAPType.Characteristic.identify
        static let active = t("B0")
        static let lockCurrentState = t("1D")
        static let lockTargetState = t("1E")
        static let currentHeatingCoolingState = t("F")
        static let targetHeatingCoolingState = t("33")
        static let currentTemperature = t("11")
        static let targetTemperature = t("35")
        static let heatingThreshold = t("12")
        static let coolingThreshold = t("D")
        static let currentRelativeHumidity = t("10")
        static let targetRelativeHumidity = t("34")
        static let currentHeaterCoolerState = t("B1")
        static let targetHeaterCoolerState = t("B2")
        static let currentPosition = t("6D")
        static let targetPosition = t("7C")
        static let positionState = t("72")
        static let currentDoorState = t("E")
        static let targetDoorState = t("32")
        static let rotationSpeed = t("29")
        static let rotationDirection = t("28")
        static let swingMode = t("B6")
        static let securitySystemCurrentState = t("66")
        static let securitySystemTargetState = t("67")
        static let programmableSwitchEvent = HAPType.Characteristic.programmableSwitchEvent
        static let targetFanState = t("BF")
        static let holdPosition = t("6F")
        static let currentHorizontalTilt = t("6C")
        static let targetHorizontalTilt = t("7B")
        static let currentVerticalTilt = t("6E")
        static let targetVerticalTilt = t("7D")
        static let currentAirPurifierState = t("A9")
        static let targetAirPurifierState = t("A8")
        static let filterChangeIndication = t("AC")
        static let filterLifeLevel = t("AB")
        static let resetFilterIndication = t("AD")
        static let currentHumidifierDehumidifierState = t("B3")
        static let targetHumidifierDehumidifierState = t("B4")
        static let dehumidifierThreshold = t("C9")
        static let humidifierThreshold = t("CA")
        static let activeIdentifier = t("E7")
        static let identifier = t("E6")
        static let isConfigured = t("D6")
        static let currentVisibilityState = t("135")
        static let remoteKey = t("E1")
        static let mute = t("11A")
        static let volume = t("119")
        static let volumeSelector = t("EA")
        static let serviceLabelIndex = t("CB")
        static let lockPhysicalControls = t("A7")
        /// Characteristics that only label a service; never an entity of their own.
        static let labels: Set<HAPType> = [
            HAPType.Characteristic.name, HAPType.Characteristic.configuredName, t("CB"), t("CD"),
        ]
    }
}
