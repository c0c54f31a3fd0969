internal import Foundation
public import HomeModel
public import HomeStore
import JSON
public import SystemSupport

/// `options.json` in the state directory: the options saved through `bridge/request/options`, by
/// accessory id (docs/DESIGN.md "Configuration and files"):
///
///     {"AA:BB:CC:DD:EE:FF/2":{"name":"Desk Lamp","room":"Office"},"AA:BB:CC:DD:EE:FF/3":{"exclude":true}}
///
/// Written atomically with mode 0600 (`StateDirectory.write`: temporary file, fsync, rename). A file that
/// cannot be read is never overwritten: loading it fails with one line, and the caller keeps it as it is.
public struct AccessoryOptionsFile: Sendable {
    /// The file's name in the state directory.
    public static let fileName = "options.json"

    private let directory: StateDirectory

    /// The file in `directory`.
    public init(directory: StateDirectory) {
        self.directory = directory
    }

    /// The file's path, for messages.
    public var path: String { directory.url(Self.fileName).path }

    /// The saved options; none when the file does not exist.
    /// - Throws: `ManagementError.failed`, one line naming the file and what is wrong with it (not JSON,
    ///   not an object of accessory ids, an unknown option, a value of the wrong type), or why it cannot be
    ///   read.
    public func load() throws(ManagementError) -> [AccessoryID: AccessoryOptions] {
        let data: Data?
        do {
            data = try directory.read(Self.fileName)
        } catch {
            throw .failed("cannot read the saved options: \(error)")
        }
        guard let data else { return [:] }
        let root: JSONValue
        do {
            root = try JSONValue(parsing: [UInt8](data))
        } catch {
            throw damaged("it is not JSON (\(error))")
        }
        guard let entries = root.objectValue else { throw damaged("it is not a JSON object") }
        var all: [AccessoryID: AccessoryOptions] = [:]
        for entry in entries {
            guard let id = AccessoryID(entry.key) else {
                throw damaged("\(JSONString.quoted(String(entry.key.prefix(40)))) is not an accessory id")
            }
            guard let fields = entry.value.objectValue else { throw damaged("the options of \(id) are not an object") }
            var options = AccessoryOptions()
            for field in fields {
                switch (field.key, field.value) {
                case ("name", .string(let name)): options.name = name
                case ("room", .string(let room)): options.room = room
                case ("exclude", .bool(let exclude)): options.exclude = exclude
                case ("name", _), ("room", _): throw damaged("\"\(field.key)\" of \(id) is not a string")
                case ("exclude", _): throw damaged("\"exclude\" of \(id) is not true or false")
                default:
                    throw damaged("\(id) has the unknown option \(JSONString.quoted(String(field.key.prefix(40))))")
                }
            }
            if !options.isEmpty { all[id] = options }
        }
        return all
    }

    /// Replaces the file with `all` (accessories without options left out), atomically, mode 0600.
    /// - Throws: `ManagementError.failed` naming the file and the system's error; the old file stays.
    public func save(_ all: [AccessoryID: AccessoryOptions]) throws(ManagementError) {
        var entries = JSONObject()
        for (id, options) in all.sorted(by: { $0.key < $1.key }) where !options.isEmpty {
            entries.append(id.description, options.jsonValue)
        }
        do {
            try directory.write(Data(JSONValue.object(entries).encoded()), to: Self.fileName)
        } catch {
            throw .failed("cannot save the options: \(error); nothing was changed")
        }
    }

    private func damaged(_ problem: String) -> ManagementError {
        .failed("\(path) is damaged: \(problem); fix or remove it (it is left as it is)")
    }
}

extension AccessoryOptions {
    /// `{"name":…,"room":…,"exclude":…}` with the options set, as `options.json`, `bridge/info` and the
    /// `options` answer show them.
    var jsonValue: JSONValue {
        var fields = JSONObject()
        if let name { fields.append("name", .string(name)) }
        if let room { fields.append("room", .string(room)) }
        if let exclude { fields.append("exclude", .bool(exclude)) }
        return .object(fields)
    }
}
