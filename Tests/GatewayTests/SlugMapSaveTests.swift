import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import SystemSupport
import Testing

@Suite("Slug map saves behind rename and options")
struct SlugMapSaveTests {
    /// A gateway harness on a fresh state directory whose management saves options there.
    func withStateDirectory(
        _ body: (GatewayHarness, StateDirectory) async throws -> Void,
        prepare: (StateDirectory) throws -> Void = { _ in }
    ) async throws {
        try await OptionsRequestTests().withOptions(
            { h, directory, _ in try await body(h, directory) }, prepare: prepare)
    }

    /// Puts a directory where `slugs.json` is, so that saving it fails (as on a full disk).
    func breakSaving(_ directory: StateDirectory) throws {
        try directory.remove(SlugRegistry.fileName)
        try FileManager.default.createDirectory(
            atPath: directory.url(SlugRegistry.fileName).appendingPathComponent("x").path,
            withIntermediateDirectories: true)
    }

    /// Sends `payload` to `bridge/request/<request>` and waits for the answer.
    func request(_ h: GatewayHarness, _ request: String, _ payload: String) async throws -> [String: Any] {
        let mark = h.mqtt.published.count
        try await h.send("hap2mqtt/bridge/request/\(request)", payload)
        return try #require(jsonObject(try await h.waitFor(topic: "hap2mqtt/bridge/response/\(request)", after: mark)))
    }

    @Test("a rename that cannot be saved is an error naming why, and the topics stay")
    func renameNotSaved() async throws {
        try await withStateDirectory { h, directory in
            try breakSaving(directory)
            let answer = try await request(h, "rename", #"{"accessory":"kitchen_lamp","to":"lamp"}"#)
            #expect(answer["status"] as? String == "error", "\(answer)")
            let error = try #require(answer["error"] as? String)
            #expect(
                error.hasPrefix("cannot save the slug map: \(directory.url(SlugRegistry.fileName).path)"), "\(error)")
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") != nil)
            #expect(h.mqtt.retained("hap2mqtt/lamp/lightbulb/on") == nil)
            #expect(try await h.set("kitchen_lamp/lightbulb/on", "1").payloadString == #"{"status":"ok","value":true}"#)
        }
    }

    @Test("a slug map that cannot be read refuses renames and option names, and is left as it is")
    func unreadableMap() async throws {
        try await withStateDirectory(
            { h, directory in
                #expect(
                    h.log.records(.error, containing: "the slug map cannot be read").count == 1, "\(h.log.lines)")
                let rename = try await request(h, "rename", #"{"accessory":"kitchen_lamp","to":"lamp"}"#)
                #expect(rename["status"] as? String == "error", "\(rename)")
                #expect((rename["error"] as? String)?.hasPrefix("cannot save the slug map: ") == true, "\(rename)")
                let options = try await request(
                    h, "options", #"{"accessory":"kitchen_lamp","options":{"name":"Desk Lamp"}}"#)
                #expect(options["status"] as? String == "error", "\(options)")
                #expect((options["error"] as? String)?.contains("cannot save the slug map: ") == true, "\(options)")
                #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") != nil)
                #expect(h.mqtt.retained("hap2mqtt/desk_lamp/lightbulb/on") == nil)
                let inside = directory.url(SlugRegistry.fileName).appendingPathComponent("inside")
                #expect(try Data(contentsOf: inside) == Data("kept".utf8))
            },
            prepare: { directory in
                let path = directory.url(SlugRegistry.fileName)
                try FileManager.default.createDirectory(atPath: path.path, withIntermediateDirectories: true)
                try Data("kept".utf8).write(to: path.appendingPathComponent("inside"))
            })
    }

    @Test("an options name change whose slug move cannot be saved says so, and the topics stay")
    func optionsNameNotSaved() async throws {
        try await withStateDirectory { h, directory in
            try breakSaving(directory)
            let answer = try await request(
                h, "options", #"{"accessory":"kitchen_lamp","options":{"name":"Desk Lamp"}}"#)
            #expect(answer["status"] as? String == "error", "\(answer)")
            let error = try #require(answer["error"] as? String)
            #expect(error.hasPrefix("the options are saved; cannot save the slug map: "), "\(error)")
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") != nil)
            #expect(h.mqtt.retained("hap2mqtt/desk_lamp/lightbulb/on") == nil)
        }
    }
}
