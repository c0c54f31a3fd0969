import Foundation

/// The repository the tests were built from: its scripts, packaging and configuration files.
enum Repository {
    /// The repository's root folder, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The file at `path` below the root.
    static func file(_ path: String) -> URL { root.appendingPathComponent(path) }
}
