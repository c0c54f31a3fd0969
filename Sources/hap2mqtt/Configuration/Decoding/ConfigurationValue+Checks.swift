import Gateway
import JSON
import MQTT
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConfigurationValue {
    /// An MQTT topic name from the configuration (MQTT 5 §4.7): not empty, at most
    /// `TopicScheme.maximumBaseLength` bytes (the gateway's topics are built on it), without the wildcards
    /// `+` and `#` and without NUL; with `allowsSlashAtEnds` false also not starting or ending in `/`, as
    /// a prefix that other levels are appended to must not.
    /// - Throws: `wrongType` for a list or mapping, `invalidValue` for a topic that breaks these rules.
    func topic(allowsSlashAtEnds: Bool) throws(ConfigurationError) -> String {
        let topic = try nonEmptyText()
        if topic.utf8.count > TopicScheme.maximumBaseLength {
            throw invalid("is \(topic.utf8.count) bytes long; at most \(TopicScheme.maximumBaseLength) are allowed")
        }
        if topic.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) {
            throw invalid("must not contain the wildcards + and # or NUL, got \(topic.jsonQuoted)")
        }
        if !allowsSlashAtEnds, topic.hasPrefix("/") || topic.hasSuffix("/") {
            throw invalid("must not start or end with /, got \(topic.jsonQuoted)")
        }
        return topic
    }

    /// An MQTT topic filter from the configuration (MQTT 5 §4.7.1): a topic whose `+` fills a whole level
    /// and whose `#` is the whole last level, without NUL, at most four times
    /// `TopicScheme.maximumBaseLength` bytes.
    /// - Throws: `wrongType` for a list or mapping, `invalidValue` for a filter that breaks these rules.
    func topicFilter() throws(ConfigurationError) -> String {
        let filter = try nonEmptyText()
        let limit = 4 * TopicScheme.maximumBaseLength
        if filter.utf8.count > limit {
            throw invalid("is \(filter.utf8.count) bytes long; at most \(limit) are allowed")
        }
        do throws(MQTTError) {
            try MQTTTopic.validateFilter(filter)
        } catch {
            guard case .invalidTopic(let why) = error else { throw invalid("\(error)") }
            throw invalid("is no MQTT topic filter: \(why)")
        }
        return filter
    }

    /// Checks that the file at `path` (relative to the working directory) can be read, so a TLS
    /// problem shows at start-up with the key that names the file.
    /// - Throws: `invalidValue` with the system's reason.
    func checkReadable(_ path: String) throws(ConfigurationError) {
        if case .failure(let reason) = FileBytes.read(path) {
            throw invalid("cannot read \(path): \(reason)")
        }
    }

    /// The text of a secret file (`mqtt.password_file`) without its trailing line breaks. Only the
    /// path ever appears in an error, never the content.
    /// - Throws: `invalidValue` when the file cannot be read or is not UTF-8.
    func secretFileContents(_ path: String) throws(ConfigurationError) -> String {
        switch FileBytes.read(path) {
        case .failure(let reason):
            throw invalid("cannot read \(path): \(reason)")
        case .success(let bytes):
            guard var text = String(validating: bytes, as: UTF8.self) else {
                throw invalid("\(path) is not UTF-8 text")
            }
            while text.last == "\n" || text.last == "\r" || text.last == "\r\n" { text.removeLast() }
            return text
        }
    }
}

/// Reads whole files with POSIX calls, so that a failure has the system's short reason (`Permission
/// denied`, `Is a directory`) rather than a long Foundation message.
enum FileBytes {
    /// Whether `path` names an existing file system entry.
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The most bytes read from one file (the configuration, a password file, a TLS certificate or key;
    /// each is a few kilobytes): a path that names `/dev/zero` or a huge file by mistake must not take the
    /// memory.
    static let maximumSize = 16 * 1024 * 1024

    /// The file's bytes, or the `strerror` text of the first call that failed (`File too large` past
    /// `maximumSize`).
    static func read(_ path: String) -> Result<[UInt8], FileReadFailure> {
        do throws(SystemCallError) {
            return .success(try SystemCall.readFile(atPath: path, maximumSize: maximumSize))
        } catch {
            return .failure(FileReadFailure(errno: error.code))
        }
    }
}

/// Why a file could not be read, as the system says it.
struct FileReadFailure: Error, Sendable, Hashable, CustomStringConvertible {
    let errno: Int32
    var description: String { String(cString: strerror(errno)) }
}
