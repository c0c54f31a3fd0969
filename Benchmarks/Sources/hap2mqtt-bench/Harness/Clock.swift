import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Time stamps cheap enough to take inside a libmosquitto callback: the monotonic clock in nanoseconds.
enum Monotonic {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Microseconds between two time stamps.
    static func micros(from start: UInt64, to end: UInt64) -> Double { Double(Int64(bitPattern: end &- start)) / 1_000 }
}

/// CPU time (user + system) the whole process has used, in microseconds: the gateway, the measuring
/// clients and the benchmark itself, all threads; not the broker, which is another process.
enum ProcessCPU {
    static func micros() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func us(_ t: timeval) -> Double { Double(t.tv_sec) * 1_000_000 + Double(t.tv_usec) }
        return us(usage.ru_utime) + us(usage.ru_stime)
    }
}

/// Resident memory figures of a process from `/proc/<pid>/status` (Linux), in kB.
enum ResidentMemory {
    /// `VmHWM` (peak resident set) and `VmRSS` (resident now) of this process, or of process `pid`; nil
    /// where `/proc` is missing or the process has gone.
    static func current(pid: Int32? = nil) -> (peakKB: Int, nowKB: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8)
        else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return line.split(separator: " ").compactMap { Int($0) }.first
        }
        guard let peak = field("VmHWM"), let now = field("VmRSS") else { return nil }
        return (peak, now)
    }
}
