import CMalloc
import Foundation

/// Keeps the resident size small on small machines (a Raspberry Pi): glibc gives every thread that
/// allocates its own malloc arena and keeps freed memory in each; with the MQTT loop thread, the HAP
/// reader threads and Swift's task threads that adds several MB that no one uses. One arena costs about
/// a tenth of the gateway's burst throughput (measured with `hap2mqtt-bench fanout`), far above what a
/// home produces. A `MALLOC_ARENA_MAX` in the environment wins.
enum MemoryTuning {
    /// Caps glibc's malloc arenas at one, unless the environment sets `MALLOC_ARENA_MAX`. Call it first
    /// thing: arenas that threads already have stay.
    static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = hap2mqtt_limit_malloc_arenas(1)
    }
}
