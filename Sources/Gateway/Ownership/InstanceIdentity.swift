import Foundation
import JSON
public import SystemSupport

/// The gateway's own instance id, kept in its state directory (`instance.json`, `{"instance":"<32 hex
/// digits>"}`), made at the first start and never changed: how a gateway knows its own claim on the
/// base topic again after a restart, a crash or a move to another host with the same state directory.
public enum InstanceIdentity {
    /// The file's name in the state directory.
    public static let fileName = "instance.json"

    /// The instance id kept in `directory`, made and written (atomically) when there is none.
    /// - Throws: `OwnershipError.instanceFile` when the file cannot be read or written, or is not such a
    ///   file (it is never replaced then: a damaged id would make this gateway another instance).
    public static func load(from directory: StateDirectory) throws(OwnershipError) -> String {
        let path = directory.url(fileName).path
        let data: Data?
        do throws(StateDirectoryError) {
            data = try directory.read(fileName, maximumSize: 4096)
        } catch {
            throw .instanceFile(path: path, reason: error.description)
        }
        if let data {
            guard let value = try? JSONValue(parsing: data), let id = value["instance"]?.stringValue, isValid(id)
            else {
                throw .instanceFile(
                    path: path,
                    reason:
                        "it is not {\"instance\":\"<32 hex digits>\"}; restore it from a backup, or remove it to make this gateway a new instance"
                )
            }
            return id
        }
        let id = hex(UInt64.random(in: 0...UInt64.max)) + hex(UInt64.random(in: 0...UInt64.max))
        let file: JSONObject = ["instance": .string(id)]
        do throws(StateDirectoryError) {
            try directory.write(Data(JSONValue.object(file).encoded()), to: fileName)
        } catch {
            throw .instanceFile(path: path, reason: error.description)
        }
        return id
    }

    /// `value` as 16 lower-case hex digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether `id` is 32 lower-case hex digits.
    static func isValid(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
