import CMalloc
import Foundation

/// Keeps the resident size small on small machines (a Raspberry Pi), and brings it back down after a
/// burst (docs/DESIGN.md "Hostile input").
///
/// glibc gives every thread that allocates its own malloc arena and keeps freed memory in each; with the
/// MQTT loop thread, the HAP reader threads and Swift's task threads that adds several MB that no one
/// uses. One arena costs about a tenth of the gateway's burst throughput (measured with
/// `hap2mqtt-bench fanout`), far above what a home produces. A `MALLOC_ARENA_MAX` in the environment wins.
///
/// glibc also keeps what a burst freed (a flood of commands, a large `/accessories` body) inside the heap
/// for later: `returnFreedMemory()` gives it back, and a fixed mmap threshold sends large blocks (big
/// payloads) to their own mappings, which a free unmaps at once.
enum MemoryTuning {
    /// Blocks from this size up get a mapping of their own (glibc's initial threshold, kept fixed).
    static let mmapThreshold: Int32 = 128 * 1024
    /// How much freed memory the heap may hold before it is given back.
    static let trimSlack = 4 * 1024 * 1024
    /// How often the heap is looked at.
    static let trimInterval = Duration.seconds(5)

    /// Caps glibc's malloc arenas at one, unless the environment sets `MALLOC_ARENA_MAX`, and fixes the
    /// mmap threshold, unless it sets `MALLOC_MMAP_THRESHOLD_`. Call it first thing: arenas that
    /// threads already have stay.
    static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if environment["MALLOC_ARENA_MAX"] == nil { _ = hap2mqtt_limit_malloc_arenas(1) }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = hap2mqtt_set_mmap_threshold(mmapThreshold) }
    }

    /// Every `trimInterval` until cancelled: when the heap holds `trimSlack` more freed memory than at
    /// the last trim (or the start), gives the free pages back to the system (`malloc_trim`). Trimmed
    /// pages stay counted as free chunks, so the comparison is with the last trim, not with zero.
    static func returnFreedMemory() async {
        var atLastTrim = hap2mqtt_free_heap_bytes()
        while !Task.isCancelled {
            try? await Task.sleep(for: trimInterval)
            let free = hap2mqtt_free_heap_bytes()
            if free > atLastTrim + trimSlack {
                _ = hap2mqtt_trim_heap()
                atLastTrim = free
            } else {
                atLastTrim = min(atLastTrim, free)
            }
        }
    }
}
