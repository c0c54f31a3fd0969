import Foundation
import Testing

@testable import hap2mqtt

/// Sends real signals to this test process; serialized so no two handlers overlap.
@Suite("Signals become async events", .serialized)
struct SignalHandlerTests {
    /// The next signal from `handler`, or nil when none came within 20 seconds.
    private func next(_ handler: SignalHandler) async -> Int32? {
        await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                var iterator = handler.signals.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test("SIGTERM and SIGINT sent to the process arrive as events and do not end it")
    func delivery() async {
        let handler = await SignalHandler()
        defer { handler.cancel() }
        kill(getpid(), SIGTERM)
        #expect(await next(handler) == SIGTERM)
        kill(getpid(), SIGINT)
        #expect(await next(handler) == SIGINT)
        kill(getpid(), SIGTERM)
        #expect(await next(handler) == SIGTERM)
    }

    @Test("cancel ends the events, and a later handler still gets the signal")
    func cancel() async {
        let first = await SignalHandler([SIGTERM])
        kill(getpid(), SIGTERM)
        #expect(await next(first) == SIGTERM)
        first.cancel()
        first.cancel()
        var iterator = first.signals.makeAsyncIterator()
        #expect(await iterator.next() == nil)

        let second = await SignalHandler([SIGTERM])
        defer { second.cancel() }
        kill(getpid(), SIGTERM)
        #expect(await next(second) == SIGTERM)
    }

    #if os(Linux)
        @Test("child processes started after a signal still start with SIGINT and SIGTERM neither blocked nor ignored")
        func children() async throws {
            let handler = await SignalHandler()
            defer { handler.cancel() }
            kill(getpid(), SIGTERM)
            #expect(await next(handler) == SIGTERM)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let masks = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> UInt64? in
                line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }
            }
            try #require(masks.count == 2, "cannot read the child's signal masks")
            let interrupt: UInt64 = 1 << (UInt64(SIGINT) - 1)
            let terminate: UInt64 = 1 << (UInt64(SIGTERM) - 1)
            for mask in masks { #expect(mask & (interrupt | terminate) == 0) }
        }
    #endif
}
