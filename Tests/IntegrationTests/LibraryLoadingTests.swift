import Foundation
import HAP2MQTTTesting
import Testing

#if os(Linux)
    /// The web page's library (libmicrohttpd), Avahi's and libsystemd are opened only when the page or
    /// discovery starts, or systemd waits to be told (Sources/CMicroHTTPD/shim.h, Sources/CAvahi/shim.h,
    /// Sources/CSystemd/shim.h): a gateway that uses none does not carry them, and one whose page cannot
    /// find its library says what to install.
    @Suite("hap2mqtt run: libraries loaded only when used")
    struct LibraryLoadingTests {
        /// The files `/proc/<pid>/maps` of the running gateway names, one per line.
        static func mappedFiles(_ gateway: GatewayProcess) throws -> String {
            let pid = try #require(gateway.processIdentifier, "the gateway is not running:\n\(gateway.log)")
            // Read to the end: a /proc file says its size is 0, and a read of that size would stop short.
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
            defer { try? file.close() }
            let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
            let files = Set(maps.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
            return files.filter { $0.hasPrefix("/") }.sorted().joined(separator: "\n")
        }

        @Test(
            "with the web page and discovery off and no systemd, neither libmicrohttpd, Avahi's libraries nor libsystemd are mapped"
        )
        func notMappedWhenUnused() async throws {
            let broker = try await MosquittoBroker()
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
            let gateway = try GatewayProcess(
                brokerURL: broker.url, environment: ["HAP2MQTT_HOMEKIT_DISCOVERY": "false"])
            try gateway.start()
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") {
                $0.bridgeState == "online"
            }
            let maps = try Self.mappedFiles(gateway)
            var unused = ["libmicrohttpd", "libavahi-client", "libavahi-common", "libdbus", "libgnutls"]
            // libsystemd is opened only when systemd waits to be told (NOTIFY_SOCKET), which the gateway
            // inherits from a test run under systemd.
            if ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] == nil { unused += ["libsystemd"] }
            for library in unused {
                #expect(!maps.contains(library), "\(library) is mapped")
            }
            await gateway.stop()
            #expect(gateway.terminationStatus == 0, "\(gateway.log)")
            await observer.disconnect()
            await broker.stop()
        }

        @Test("with the web page on, libmicrohttpd is mapped once the page serves")
        func mappedWhenServing() async throws {
            let broker = try await MosquittoBroker()
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
            let gateway = try GatewayProcess(
                brokerURL: broker.url, extraYAML: "frontend:\n  enabled: true\n  port: 0",
                environment: ["HAP2MQTT_HOMEKIT_DISCOVERY": "false"])
            try gateway.start()
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") {
                $0.bridgeState == "online"
            }
            #expect(gateway.log.contains("web page at "), "\(gateway.log)")
            let maps = try Self.mappedFiles(gateway)
            #expect(maps.contains("libmicrohttpd"), "\(maps)")
            await gateway.stop()
            await observer.disconnect()
            await broker.stop()
        }

        /// Where the dynamic loader finds libmicrohttpd.so.12 (`ldconfig -p`), nil when it does not.
        static func microHTTPDPath() async -> String? {
            guard let output = try? await ExternalTool.run("ldconfig", ["-p"]) else { return nil }
            return output.split(separator: "\n").lazy.compactMap { line -> String? in
                guard line.trimmingCharacters(in: .whitespaces).hasPrefix("libmicrohttpd.so.12 "),
                    let arrow = line.range(of: "=> ")
                else { return nil }
                return String(line[arrow.upperBound...])
            }.first
        }

        @Test(
            "without libmicrohttpd, run stops at once with one line that names the package to install",
            .enabled(if: getuid() == 0 && ExternalTool.find("unshare") != nil, "needs root and unshare"))
        func missingLibrary() async throws {
            let library = try #require(await Self.microHTTPDPath(), "ldconfig does not know libmicrohttpd.so.12")
            // No broker listens here: run must stop before it tries.
            let gateway = try GatewayProcess(
                brokerURL: "mqtt://127.0.0.1:1", extraYAML: "frontend:\n  enabled: true\n  port: 0")
            // A private mount namespace hides the library behind /dev/null from this one process.
            let output = gateway.directory.appendingPathComponent("missing-library.log")
            let process = try ExternalTool.launch(
                "unshare",
                [
                    "--mount", "--propagation", "private", "sh", "-c", #"mount --bind /dev/null "$0" && exec "$@""#,
                    library, try GatewayProcess.binary().path, "run", "--config", gateway.configurationFile.path,
                ], output: output)
            try await eventually("hap2mqtt run to stop", timeout: .seconds(30)) { !process.isRunning }
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            #expect(process.terminationStatus == 1, "\(text)")
            let line = text.split(separator: "\n").first { $0.hasPrefix("hap2mqtt: cannot start the web page") }
            #expect(
                line?.hasPrefix(
                    "hap2mqtt: cannot start the web page: libmicrohttpd.so.12 not found: install libmicrohttpd12, "
                        + "or turn the web page off with frontend.enabled: false (") == true, "\(text)")
            #expect(!text.contains("cannot connect to the MQTT broker"))
        }
    }
#endif
