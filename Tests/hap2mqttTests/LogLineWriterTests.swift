import Foundation
import Logging
import Testing

@testable import hap2mqtt

@Suite("Log lines on standard error")
struct LogLineWriterTests {
    /// 2023-11-14T22:13:20.123Z
    static let instant = Date(timeIntervalSince1970: 1_700_000_000.123)

    /// Logs through a writer into a temporary file and returns the file's lines.
    private func lines(level: LogLevel = .trace, _ body: (Logger) -> Void) throws -> [String] {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let path = files.path + "/log"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        let writer = LogLineWriter(fileDescriptor: fd) { Self.instant }
        body(Logger(label: "mqtt", sink: writer.sink(minimumLevel: level, bridgeLevel: .error)))
        close(fd)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n") || text.isEmpty)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test("a line is time, level, label, message and sorted key=value metadata")
    func format() throws {
        let logged = try lines { logger in
            logger.info("connected to the broker", ["port": "1883", "host": "127.0.0.1"])
            logger.warning("write failed", ["accessory": "Kitchen Lamp", "hap.status": "-70402", "empty": ""])
            logger.error("bad payload\nsecond line", ["payload": "a=\"b\"\n"])
        }
        #expect(
            logged == [
                "2023-11-14T22:13:20.123Z info    mqtt: connected to the broker host=127.0.0.1 port=1883",
                #"2023-11-14T22:13:20.123Z warning mqtt: write failed accessory="Kitchen Lamp" empty="" hap.status=-70402"#,
                #"2023-11-14T22:13:20.123Z error   mqtt: bad payload\nsecond line payload="a=\"b\"\n""#,
            ])
    }

    @Test("records below the minimum level are dropped")
    func minimumLevel() throws {
        let logged = try lines(level: .notice) { logger in
            logger.debug("hidden")
            logger.info("hidden")
            logger.notice("shown")
        }
        #expect(logged == ["2023-11-14T22:13:20.123Z notice  mqtt: shown"])
    }

    @Test("lines from many threads at once never interleave")
    func concurrent() throws {
        let threads = 8
        let perThread = 300
        let filler = String(repeating: "x", count: 5000)
        let logged = try lines { logger in
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for index in 0..<perThread { logger.info("t\(thread) n\(index) \(filler)") }
            }
        }
        let expected = (0..<threads).flatMap { thread in
            (0..<perThread).map { "2023-11-14T22:13:20.123Z info    mqtt: t\(thread) n\($0) \(filler)" }
        }
        #expect(logged.count == expected.count)
        #expect(Set(logged) == Set(expected))
    }
}
