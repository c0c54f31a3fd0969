import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the peer scenario reads of another process (Linux `/proc`), and how it pins one to a core.
enum ChildProcess {
    /// The CPU time (user + system, all threads) process `pid` has used, in µs, from fields 14 and 15 of
    /// `/proc/<pid>/stat` (clock ticks, 10 ms each at the usual 100 Hz); nil when it has gone.
    static func cpuMicros(pid: Int32) -> Double? {
        cpuTimes(pid: pid).map { $0.user + $0.system }
    }

    /// The user and the system (kernel) part of `cpuMicros`, in µs.
    static func cpuTimes(pid: Int32) -> (user: Double, system: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        // After the command name in parentheses: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let tick = 1_000_000 / Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user * tick, system * tick)
    }

    /// The core a measured side runs on: the last one, so that on two cores the first is left to the
    /// bridges, the broker and the harness as much as the scheduler allows.
    static var measuredCore: Int { max(0, ProcessInfo.processInfo.activeProcessorCount - 1) }

    /// Runs `start` (which starts a process) with the calling thread pinned to `core`, then unpins it: a
    /// child inherits the affinity of the thread that spawns it, so every thread it ever makes stays on
    /// that core, as under `taskset -c <core>`. Glibc declares `sched_setaffinity` only with _GNU_SOURCE,
    /// which Swift's Glibc module does not define, so it is looked up by name.
    static func pinned<T>(to core: Int, _ start: () throws -> T) rethrows -> T {
        typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
        guard let get = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_getaffinity"),
            let set = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity")
        else { return try start() }
        let getAffinity = unsafeBitCast(get, to: Affinity.self)
        let setAffinity = unsafeBitCast(set, to: Affinity.self)
        // A cpu_set_t: 1,024 bits.
        var all = [UInt8](repeating: 0, count: 128)
        var one = [UInt8](repeating: 0, count: 128)
        one[core / 8] = UInt8(1 << (core % 8))
        let saved = all.withUnsafeMutableBytes { getAffinity(0, 128, $0.baseAddress!) } == 0
        _ = one.withUnsafeMutableBytes { setAffinity(0, 128, $0.baseAddress!) }
        defer { if saved { _ = all.withUnsafeMutableBytes { setAffinity(0, 128, $0.baseAddress!) } } }
        return try start()
    }
}
