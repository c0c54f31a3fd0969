import Foundation
import HAP2MQTTTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Home Assistant's REST API (`/api/...`, with the owner's bearer token).
extension HomeAssistant {
    /// Every entity's state (`GET /api/states`).
    public func states() async throws -> [HomeAssistantState] {
        try JSONDecoder().decode([HomeAssistantState].self, from: try await request("GET", "/api/states"))
    }

    /// One entity's state, or nil when Home Assistant has no such entity (`GET /api/states/<id>`).
    public func state(_ entityID: String) async throws -> HomeAssistantState? {
        let (data, status) = try await send("GET", "/api/states/\(entityID)", body: nil)
        if status == 404 { return nil }
        guard status == 200 else {
            throw TestSupportError.commandFailed(
                "GET /api/states/\(entityID): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(HomeAssistantState.self, from: data)
    }

    /// Calls a service and waits for it to finish (`POST /api/services/<domain>/<service>`), e.g.
    /// `callService("light", "turn_on", ["entity_id": "light.kitchen_lamp", "brightness": 128])`.
    /// - Throws: `TestSupportError.commandFailed` with Home Assistant's answer when it refuses the call.
    public func callService(_ domain: String, _ service: String, _ data: [String: any Sendable]) async throws {
        let body = try JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])
        _ = try await request("POST", "/api/services/\(domain)/\(service)", body: body)
    }

    /// Home Assistant's error log (`GET /api/error_log`): every warning and error since it started.
    public func errorLog() async throws -> String {
        String(decoding: try await request("GET", "/api/error_log"), as: UTF8.self)
    }

    /// The lines of `errorLog()` that are warnings or errors, except the three Home Assistant always logs
    /// here (pip skipped, Python 3.11 deprecated, no IPv4 address in its own network namespace), its
    /// timing warnings (`isTimingWarning(_:)`), which say only that its event loop waited for a busy
    /// machine, not that a config or a state was wrong, and the micrograms per cubic metre of this older
    /// release: hap2mqtt spells them `μg/m³` (Greek mu) as current Home Assistant does, this one expects
    /// the micro sign.
    public func problems() async throws -> [String] {
        let harmless = [
            "Skipping pip installation", "running Python version", "does not have any enabled IPv4 addresses",
            "is using native unit of measurement '\u{03BC}g/m³' which is not a valid unit for the device class",
        ]
        return try await errorLog().split(separator: "\n").map(String.init).filter { line in
            (line.contains("WARNING") || line.contains("ERROR")) && !harmless.contains { line.contains($0) }
                && !Self.isTimingWarning(line)
        }
    }

    /// Whether `line` is one of Home Assistant's warnings that something took long on a busy machine:
    /// writing an entity's state (`Updating state for <entity> … took 1.457 seconds.`, above 0.4 s), or
    /// setting up an integration or one of its platforms (`Setup of schedule is taking over 10 seconds.`,
    /// `Setup of sensor platform mqtt is taking over 10 seconds.`). The setup still finishes; a setup that
    /// fails logs an error of its own, which `problems()` keeps.
    public static func isTimingWarning(_ line: String) -> Bool {
        guard line.contains("WARNING") else { return false }
        let slowUpdate =
            line.contains("[homeassistant.helpers.entity] Updating state for ") && line.contains(" seconds.")
        let slowSetup =
            (line.contains("[homeassistant.setup] Setup of ")
                || line.contains("[homeassistant.helpers.entity_platform] Setup of "))
            && line.contains(" is taking over ") && line.hasSuffix(" seconds.")
        return slowUpdate || slowSetup
    }

    /// Renders a template (`POST /api/template`), e.g. `{{ integration_entities('mqtt') | list }}`.
    public func renderTemplate(_ template: String) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["template": template])
        return String(decoding: try await request("POST", "/api/template", body: body), as: UTF8.self)
    }

    /// The entities of the device with this name, by asking Home Assistant's device registry through
    /// a template, sorted.
    public func deviceEntities(named name: String) async throws -> [String] {
        let template =
            "{% for e in integration_entities('mqtt') if device_attr(device_id(e), 'name') == \(jsonString(name)) %}{{ e }}\n{% endfor %}"
        return try await renderTemplate(template).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            .sorted()
    }

    /// The id of the device `entityID` belongs to in Home Assistant's device registry, or nil.
    public func deviceID(of entityID: String) async throws -> String? {
        let id = try await renderTemplate("{{ device_id(\(jsonString(entityID))) }}").trimmingCharacters(
            in: .whitespacesAndNewlines)
        return id.isEmpty || id == "None" ? nil : id
    }

    /// A field of a device of the registry (`device_attr`), e.g. `via_device_id`, as text; nil for none.
    public func deviceAttribute(_ deviceID: String, _ name: String) async throws -> String? {
        let text = try await renderTemplate("{{ device_attr(\(jsonString(deviceID)), \(jsonString(name))) }}")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text == "None" ? nil : text
    }

    /// Creates (or replaces) an automation in `automations.yaml` through Home Assistant's config API
    /// (`POST /api/config/automation/config/<id>`), which reloads the automations; `config` holds
    /// `alias`, `trigger` and `action`. Its entity is `automation.<alias in snake case>`.
    public func saveAutomation(id: String, _ config: [String: any Sendable]) async throws {
        var body = config
        body["id"] = id
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        _ = try await request("POST", "/api/config/automation/config/\(id)", body: data)
    }

    /// The image an `image` entity shows, as Home Assistant serves it (`GET /api/image_proxy/<entity>`).
    public func image(_ entityID: String) async throws -> [UInt8] {
        [UInt8](try await request("GET", "/api/image_proxy/\(entityID)"))
    }

    /// The devices of the MQTT integration, each with its entities and their states (and units), as a
    /// Markdown table: what docs/home-assistant.md "Entities from a real run" shows.
    public func entityTable() async throws -> String {
        let template =
            "{% for e in integration_entities('mqtt') %}{{ device_attr(device_id(e), 'name') }}\t{{ e }}\n{% endfor %}"
        var devices: [String: [String]] = [:]
        for line in try await renderTemplate(template).split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard fields.count == 2 else { continue }
            devices[fields[0], default: []].append(fields[1])
        }
        var lines = ["| device | entities |", "| --- | --- |"]
        for (device, entities) in devices.sorted(by: { $0.key < $1.key }) {
            var shown: [String] = []
            for entity in entities.sorted() {
                let state = try await state(entity)
                let unit = state?.attributes["unit_of_measurement"]?.string.map { " \($0)" } ?? ""
                shown.append("`\(entity)` (\(state?.state ?? "?")\(unit))")
            }
            lines.append("| \(device) | \(shown.joined(separator: ", ")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Waits until `entityID` exists and `predicate` holds for it, up to `timeout`.
    /// - Throws: `TestSupportError.timedOut` with the last state seen.
    @discardableResult
    public func waitForState(
        _ entityID: String, timeout: Duration = .seconds(20), where predicate: (HomeAssistantState) -> Bool
    ) async throws -> HomeAssistantState {
        let deadline = ContinuousClock.now + timeout
        var last: HomeAssistantState?
        while ContinuousClock.now < deadline {
            last = try await state(entityID)
            if let last, predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError.timedOut(
            "\(entityID) did not reach the expected state in \(timeout); last seen: \(last.map(\.description) ?? "no such entity")"
        )
    }

    func getJSON(_ path: String) async throws -> [String: HomeAssistantValue] {
        try JSONDecoder().decode([String: HomeAssistantValue].self, from: try await request("GET", path))
    }

    private func request(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        let (data, status) = try await send(method, path, body: body)
        guard (200..<300).contains(status) else {
            throw TestSupportError.commandFailed(
                "\(method) \(path): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    private func send(_ method: String, _ path: String, body: Data?) async throws -> (Data, Int) {
        guard let url = URL(string: url + path) else { throw TestSupportError.commandFailed("bad path \(path)") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    private func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}
