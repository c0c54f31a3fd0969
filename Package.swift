// swift-tools-version:6.2
// hap2mqtt: a HomeKit (HAP over IP) controller that maps accessories to MQTT.
// The module graph follows docs/DESIGN.md "Parts"; arrows point down that table only.
// Licensed under the Apache License 2.0 (LICENSE); data taken from other projects is credited in NOTICE.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "hap2mqtt",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hap2mqtt", targets: ["hap2mqtt"])
    ],
    targets: [
        // C libraries from the system (Debian -dev packages / Homebrew).
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"]), .brew(["mosquitto"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // sd_notify for systemd's Type=notify and watchdog (Linux only: there is no libsystemd elsewhere).
        // Its header only: the library is opened when systemd asks to be told (Sources/CSystemd/shim.h), so
        // no pkgConfig, whose -lsystemd would link it.
        .systemLibrary(name: "CSystemd", providers: [.apt(["libsystemd-dev"])]),
        // glibc's mallopt, for a small resident size on small machines.
        .systemLibrary(name: "CMalloc"),
        // The web page's HTTP server (HTTP/1.1, streamed responses for Server-Sent Events). Its headers only:
        // on Linux the library is opened when the page starts (Sources/CMicroHTTPD/shim.h), so no pkgConfig,
        // whose -lmicrohttpd would link it; its headers are in the default paths.
        .systemLibrary(
            name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .systemLibrary(
            name: "CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]),
        // Avahi's client library (Debian: libavahi-client-dev): DNS-SD browsing on Linux; macOS has dns_sd
        // in its system library. Its headers only: the libraries are opened when discovery starts
        // (Sources/CAvahi/shim.h). No pkgConfig: avahi-client.pc adds -D_REENTRANT, which SwiftPM warns
        // about, and -lavahi-client, which would link it; its headers are in the default paths.
        .systemLibrary(name: "CAvahi"),
        // epoll(7) for the HAP read loop (Linux).
        .systemLibrary(name: "CEpoll"),

        // The parts of docs/DESIGN.md.
        // What every part may use: atomic state files, deadlines, system calls (the toolchain only).
        .target(name: "SystemSupport"),
        // The logger every part takes from its caller (the toolchain only).
        .target(name: "Logging"),
        // The one JSON value type, parser, encoder and string escaper of the program (the toolchain
        // only), so that every part can import it, also one that may not import HomeModel.
        .target(name: "JSON"),
        .target(name: "HomeModel", dependencies: ["JSON"]),
        .target(name: "HomeStore", dependencies: ["HomeModel", "Logging", "SystemSupport"]),
        .target(name: "MQTT", dependencies: ["CMosquitto", "COpenSSL", "Logging", "SystemSupport"]),
        .target(
            name: "HAPController",
            dependencies: [
                "JSON", "HomeModel", "HomeStore", "Logging", "SystemSupport", "COpenSSL",
                .target(name: "CAvahi", condition: .when(platforms: [.linux])),
                .target(name: "CEpoll", condition: .when(platforms: [.linux])),
            ]),
        .target(name: "Gateway", dependencies: ["JSON", "HomeModel", "HomeStore", "MQTT", "Logging", "SystemSupport"]),
        // The web page `run` serves: reads and writes through the store and the gateway's bridge requests.
        .target(
            name: "Web",
            dependencies: ["JSON", "HomeModel", "HomeStore", "Gateway", "Logging", "SystemSupport", "CMicroHTTPD"],
            // On Linux libmicrohttpd is opened when the page starts (Sources/CMicroHTTPD/shim.h); macOS links it.
            linkerSettings: [.linkedLibrary("microhttpd", .when(platforms: [.macOS]))],
            plugins: ["EmbedWebPage"]),
        .executableTarget(
            name: "hap2mqtt",
            dependencies: [
                "JSON", "HomeModel", "HomeStore", "MQTT", "HAPController", "Gateway", "Web", "Logging", "SystemSupport",
                "CYAML", "CMalloc", .target(name: "CSystemd", condition: .when(platforms: [.linux])),
            ],
            plugins: ["BuildCommit"]),
        // The commit `hap2mqtt --version` names, written before every build (no network needed).
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // The web page's files (web/) as Swift text in the Web target: the binary serves them.
        .plugin(name: "EmbedWebPage", capability: .buildTool()),

        // Test support: fakes and process launchers. Never linked into the hap2mqtt executable.
        .target(
            name: "HAP2MQTTTesting",
            dependencies: ["HomeModel", "HomeStore", "MQTT", "Logging", "SystemSupport"],
            path: "Tests/HAP2MQTTTesting"),
        // A real Home Assistant for the discovery tests, with a REST client on URLSession: a target of its
        // own, so that FoundationNetworking (libcurl and its dependencies, 4.5 MB resident) is linked into
        // the tests that use it and not into hap2mqtt-bench, whose memory probe carries what a gateway does.
        .target(
            name: "HomeAssistantTesting", dependencies: ["HAP2MQTTTesting", "MQTT"], path: "Tests/HomeAssistantTesting"),

        // Benchmarks (Benchmarks/README.md): not part of the hap2mqtt product.
        .executableTarget(
            name: "hap2mqtt-bench",
            dependencies: [
                "JSON", "HomeModel", "HomeStore", "MQTT", "Gateway", "HAPController", "Logging", "SystemSupport",
                "CMosquitto", "CMalloc", "HAP2MQTTTesting",
            ],
            path: "Benchmarks/Sources/hap2mqtt-bench"),

        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging", "HAP2MQTTTesting"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "HAP2MQTTTesting"]),
        .testTarget(name: "HomeModelTests", dependencies: ["HomeModel", "JSON"]),
        .testTarget(name: "HomeStoreTests", dependencies: ["HomeStore", "Logging", "HAP2MQTTTesting"]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "Logging", "HAP2MQTTTesting"]),
        .testTarget(
            name: "HAPControllerTests",
            dependencies: ["HAPController", "JSON", "Logging", "SystemSupport", "HAP2MQTTTesting"]),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "HAPController", "JSON", "Logging", "SystemSupport", "HAP2MQTTTesting",
                "HomeAssistantTesting",
            ]),
        .testTarget(
            name: "WebTests",
            dependencies: [
                "Web", "Gateway", "HomeModel", "HomeStore", "Logging", "MQTT", "SystemSupport", "HAP2MQTTTesting",
            ]),
        .testTarget(
            name: "hap2mqttTests", dependencies: ["hap2mqtt", "JSON", "Logging", "SystemSupport", "HAP2MQTTTesting"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["HAP2MQTTTesting", "HomeAssistantTesting", "MQTT", "HomeModel"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
