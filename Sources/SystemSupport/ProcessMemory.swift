import Foundation

/// The memory this process holds, as the kernel counts it.
public enum ProcessMemory {
    /// The resident set size in bytes: the second field of Linux's `/proc/self/statm`, in pages. Nil
    /// where there is no such file (macOS).
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
