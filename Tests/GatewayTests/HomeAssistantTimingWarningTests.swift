import HomeAssistantTesting
import Testing

@Suite("Home Assistant's log: timing warnings apart from problems")
struct HomeAssistantTimingWarningTests {
    @Test("a slow state update or a slow setup on a busy machine is a timing warning; a failed setup is not")
    func timing() {
        let timing = [
            "2026-12-02 15:10:01.234 WARNING (MainThread) [homeassistant.setup] Setup of schedule is taking over 10 seconds.",
            "2026-12-02 15:10:02.345 WARNING (MainThread) [homeassistant.helpers.entity_platform] Setup of sensor platform mqtt is taking over 10 seconds.",
            "2026-12-02 15:10:03.456 WARNING (MainThread) [homeassistant.helpers.entity] Updating state for light.kitchen_lamp (<class 'homeassistant.components.mqtt.light.schema_json.MqttLightJson'>) took 1.457 seconds. Please create a bug report",
        ]
        for line in timing { #expect(HomeAssistant.isTimingWarning(line), "\(line)") }
        let problems = [
            "2026-12-02 15:10:04.567 ERROR (MainThread) [homeassistant.setup] Setup failed for 'mqtt': Integration failed to initialize.",
            "2026-12-02 15:10:05.678 WARNING (MainThread) [homeassistant.components.mqtt.mixins] Invalid config for 'mqtt' from discovery: required key not provided",
            "2026-12-02 15:10:06.789 ERROR (MainThread) [homeassistant.setup] Setup of schedule is taking over 10 seconds.",
        ]
        for line in problems { #expect(!HomeAssistant.isTimingWarning(line), "\(line)") }
    }
}
