/// The HAP types the code refers to by name (HAP spec §8 and §9; docs/hap-notes.md §6). The catalog holds
/// them all as data; these constants exist so that code finds services and characteristics by type.
extension HAPType {
    private static func apple(_ short: String) -> HAPType { HAPType(short)! }

    /// Service types.
    public enum Service {
        public static let accessoryInformation = apple("3E")
        public static let protocolInformation = apple("A2")
        public static let lightbulb = apple("43")
        public static let `switch` = apple("49")
        public static let outlet = apple("47")
        public static let thermostat = apple("4A")
        public static let lockMechanism = apple("45")
        public static let windowCovering = apple("8C")
        public static let temperatureSensor = apple("8A")
        public static let humiditySensor = apple("82")
        public static let contactSensor = apple("80")
        public static let motionSensor = apple("85")
        public static let statelessProgrammableSwitch = apple("89")
        public static let doorbell = apple("121")
    }

    /// Characteristic types.
    public enum Characteristic {
        public static let identify = apple("14")
        public static let manufacturer = apple("20")
        public static let model = apple("21")
        public static let name = apple("23")
        public static let serialNumber = apple("30")
        public static let firmwareRevision = apple("52")
        public static let hardwareRevision = apple("53")
        public static let on = apple("25")
        public static let brightness = apple("8")
        public static let hue = apple("13")
        public static let saturation = apple("2F")
        public static let colorTemperature = apple("CE")
        public static let configuredName = apple("E3")
        public static let programmableSwitchEvent = apple("73")
        public static let version = apple("37")
    }
}
