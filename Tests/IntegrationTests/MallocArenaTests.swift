import Foundation
import HAP2MQTTTesting
import Testing

#if os(Linux)
    /// `hap2mqtt run` caps glibc's malloc arenas at one (Sources/hap2mqtt/Process/MemoryTuning.swift): its
    /// threads share the main heap instead of reserving 64 MiB arenas of their own.
    @Suite("hap2mqtt run: one malloc arena")
    struct MallocArenaTests {
        /// The arenas besides the main heap in `/proc/<pid>/maps`: glibc maps each at a 64 MiB boundary
        /// (HEAP_MAX_SIZE), the part in use read-write and the rest of the 64 MiB reserved without access.
        static func extraArenas(pid: Int32) throws -> Int {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
            defer { try? file.close() }
            let lines = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self).split(separator: "\n")
            let regions = lines.compactMap { line -> (start: UInt64, end: UInt64, access: Substring, file: Bool)? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let bounds = fields.first?.split(separator: "-").compactMap { UInt64($0, radix: 16) } ?? []
                guard fields.count >= 5, bounds.count == 2 else { return nil }
                return (bounds[0], bounds[1], fields[1], fields.count > 5)
            }
            let arena: UInt64 = 64 << 20
            return regions.indices.filter { index in
                let region = regions[index]
                guard !region.file, region.access.hasPrefix("rw"), region.start % arena == 0 else { return false }
                if region.end - region.start == arena { return true }
                guard index + 1 < regions.count else { return false }
                let rest = regions[index + 1]
                return !rest.file && rest.access.hasPrefix("---") && rest.start == region.end
                    && rest.end == region.start + arena
            }.count
        }

        @Test("run's threads use the main heap: no other arena")
        func oneArena() async throws {
            let broker = try await MosquittoBroker()
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
            // The web page adds a thread per connection and its listener; discovery is off outside a namespace.
            let gateway = try GatewayProcess(
                brokerURL: broker.url, extraYAML: "frontend:\n  enabled: true\n  port: 0")
            try gateway.start()
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") {
                $0.bridgeState == "online"
            }
            let pid = try #require(gateway.processIdentifier)
            #expect(try Self.extraArenas(pid: pid) == 0)
            await gateway.stop()
            await observer.disconnect()
            await broker.stop()
        }
    }
#endif
