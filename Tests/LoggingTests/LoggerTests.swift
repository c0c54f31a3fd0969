import HAP2MQTTTesting
import Logging
import Testing

@Suite("Logger")
struct LoggerTests {
    @Test("a record carries the level, the label, the message and the metadata, the line's own winning")
    func record() {
        let log = LogCapture()
        let logger = log.logger(label: "hap").with(["pairing": "AA:BB", "hap.aid": "1"])
        logger.warning("cannot connect to Bridge", ["hap.aid": "2"])
        #expect(
            log.all == [
                LogRecord(
                    level: .warning, label: "hap", message: "cannot connect to Bridge",
                    metadata: ["pairing": "AA:BB", "hap.aid": "2"])
            ])
        #expect(log.lines == ["warning hap: cannot connect to Bridge hap.aid=2 pairing=AA:BB"])
    }

    @Test("a line below the sink's level is dropped without building its message")
    func minimumLevel() {
        let kept = Recorder<LogRecord>()
        let logger = Logger(label: "mqtt", sink: LogSink(minimumLevel: .info) { kept.append($0) })
        var built = 0
        func message(_ text: String) -> String {
            built += 1
            return text
        }
        logger.debug(message("subscribed again"))
        logger.info(message("connected"))
        #expect(kept.elements.map(\.message) == ["connected"])
        #expect(built == 1)
    }

    @Test("the level names parse in any case, warn included, and print as --log-level takes them")
    func levelNames() {
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "Notice") == .notice)
        #expect(LogLevel(name: "loud") == nil)
        #expect(LogLevel.allCases.map(\.description) == ["trace", "debug", "info", "notice", "warning", "error"])
        #expect(LogLevel.allCases == LogLevel.allCases.sorted())
    }
}

@Suite("LogCapture")
struct LogCaptureTests {
    @Test("waitFor finds a line written later from another task, at its level only")
    func waitFor() async throws {
        let log = LogCapture()
        let logger = log.logger(label: "gateway")
        logger.info("ignored a retained command on a/set")
        async let later: Void = {
            try? await Task.sleep(for: .milliseconds(50))
            logger.warning("ignored a retained command on a/set")
        }()
        let record = try await log.waitFor(.warning, containing: "retained command")
        await later
        #expect(record.label == "gateway")
        #expect(log.records(.warning, containing: "retained").count == 1)
    }

    @Test("a line that never comes fails the wait with every line seen")
    func missing() async {
        let log = LogCapture()
        log.logger(label: "hap").error("something else")
        let error = await #expect(throws: TestSupportError.self) {
            try await log.waitFor(.error, containing: "Pair again", timeout: .milliseconds(100))
        }
        #expect(error?.description.contains("error hap: something else") == true)
    }
}
