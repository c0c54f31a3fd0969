internal import Foundation
import HomeModel
import JSON
import SystemSupport

/// `scenes.json` in the state directory: the stored scenes and groups (docs/scenes-and-groups.md):
///
///     {"scenes":[{"name":"Good night","slug":"good_night","values":[{"accessory":"AA:…/2","iid":10,
///       "label":"light/lightbulb/on","value":false}]}],
///      "groups":[{"name":"Lights","slug":"lights","kind":"light","members":[{"accessory":"AA:…/2","service":9}]}]}
///
/// Written atomically with mode 0600 (`StateDirectory.write`: temporary file, fsync, rename), never on
/// the store's executor. A file that cannot be read is never overwritten: loading fails with one line,
/// and the caller refuses changes until it is fixed or removed.
struct ScenesFile: Sendable {
    /// The file's name in the state directory.
    static let fileName = "scenes.json"

    private let directory: StateDirectory

    init(directory: StateDirectory) {
        self.directory = directory
    }

    /// The file's path, for messages.
    var path: String { directory.url(Self.fileName).path }

    /// The stored scenes and groups; none when the file does not exist.
    /// - Throws: `GatewayError.invalidPayload`, one line naming the file and what is wrong with it.
    func load() throws(GatewayError) -> (scenes: [Scene], groups: [DeviceGroup]) {
        let data: Data?
        do {
            data = try directory.read(Self.fileName)
        } catch {
            throw .invalidPayload("cannot read \(path): \(error)")
        }
        guard let data else { return ([], []) }
        guard let root = try? JSONValue(parsing: [UInt8](data)), let object = root.objectValue else {
            throw damaged("it is not a JSON object")
        }
        var scenes: [Scene] = []
        for entry in object["scenes"]?.arrayValue ?? [] {
            guard let name = entry["name"]?.stringValue, let slug = entry["slug"]?.stringValue,
                let values = entry["values"]?.arrayValue
            else { throw damaged("a scene lacks its name, slug or values") }
            var read: [SceneValue] = []
            for value in values {
                guard let id = value["accessory"]?.stringValue.flatMap(AccessoryID.init),
                    let iid = value["iid"]?.intValue, let label = value["label"]?.stringValue,
                    let scalar = value["value"]
                else { throw damaged("a value of scene \(JSONString.quoted(slug)) is incomplete") }
                read.append(
                    SceneValue(address: CharacteristicAddress(accessory: id, iid: iid), value: scalar, label: label))
            }
            scenes.append(Scene(name: name, slug: slug, values: read))
        }
        var groups: [DeviceGroup] = []
        for entry in object["groups"]?.arrayValue ?? [] {
            guard let name = entry["name"]?.stringValue, let slug = entry["slug"]?.stringValue,
                let kind = entry["kind"]?.stringValue.flatMap(GroupKind.init(rawValue:)),
                let members = entry["members"]?.arrayValue
            else { throw damaged("a group lacks its name, slug, kind or members") }
            var read: [GroupMember] = []
            for member in members {
                guard let id = member["accessory"]?.stringValue.flatMap(AccessoryID.init),
                    let service = member["service"]?.intValue
                else { throw damaged("a member of group \(JSONString.quoted(slug)) is incomplete") }
                read.append(GroupMember(accessory: id, service: service))
            }
            groups.append(DeviceGroup(name: name, slug: slug, kind: kind, members: read))
        }
        return (scenes, groups)
    }

    /// Replaces the file with `scenes` and `groups`, atomically, mode 0600.
    /// - Throws: `GatewayError.invalidPayload` naming the file and the system's error; the old file stays.
    func save(scenes: [Scene], groups: [DeviceGroup]) throws(GatewayError) {
        let root: JSONValue = [
            "scenes": .array(scenes.map(Self.json)), "groups": .array(groups.map(Self.json)),
        ]
        do {
            try directory.write(Data(root.encoded()), to: Self.fileName)
        } catch {
            throw .invalidPayload("cannot save \(path): \(error); nothing was changed")
        }
    }

    private static func json(_ scene: Scene) -> JSONValue {
        let values = scene.values.map { value -> JSONValue in
            [
                "accessory": .string(value.address.accessory.description), "iid": JSONValue(value.address.iid),
                "label": .string(value.label), "value": value.value,
            ]
        }
        return ["name": .string(scene.name), "slug": .string(scene.slug), "values": .array(values)]
    }

    private static func json(_ group: DeviceGroup) -> JSONValue {
        let members = group.members.map { member -> JSONValue in
            ["accessory": .string(member.accessory.description), "service": JSONValue(member.service)]
        }
        return [
            "name": .string(group.name), "slug": .string(group.slug), "kind": .string(group.kind.rawValue),
            "members": .array(members),
        ]
    }

    private func damaged(_ problem: String) -> GatewayError {
        .invalidPayload("\(path) is damaged: \(problem); fix or remove it (it is left as it is)")
    }
}
