import Foundation
import HomeStore
import SystemSupport

/// A fresh directory under the system's temporary directory for one test's state; `remove()` deletes it.
struct TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "hap2mqtt-hapcontroller-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The directory as a state directory.
    var stateDirectory: StateDirectory { StateDirectory(path: path) }

    /// The permission bits of `name` in the directory (e.g. 0o600).
    func mode(of name: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// The names of the files in the directory, sorted.
    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
