import Foundation

/// A directory under the system's temporary directory that tests write files into; removed by
/// `remove()`, which every test calls in a `defer`.
struct TemporaryFiles {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "hap2mqtt-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the directory and returns the file's path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
