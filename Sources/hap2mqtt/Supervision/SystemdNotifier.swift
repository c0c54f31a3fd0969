#if canImport(CSystemd)
    import CSystemd
    import Glibc
#endif

/// Tells systemd how a `Type=notify` service is doing, through libsystemd's `sd_notify(3)`: `READY=1`
/// once the home has synced, `WATCHDOG=1` while the main loops answer, `STOPPING=1` on a clean stop
/// (`packaging/systemd/hap2mqtt.service`).
///
/// A no-op where there is nothing to tell: `NOTIFY_SOCKET` unset (not started by systemd, or in a
/// container), or a platform without libsystemd (macOS). libsystemd is opened only when `NOTIFY_SOCKET`
/// is set (`SystemdLibrary`). Each message is one datagram that `sd_notify` sends at once; a failure to
/// send, or to open the library, is ignored, since the service works the same without systemd's knowing.
struct SystemdNotifier: Sendable {
    /// Half the watchdog timeout systemd set (`WatchdogSec=`, handed over as `WATCHDOG_USEC` and
    /// `WATCHDOG_PID`), as `sd_watchdog_enabled(3)` advises pinging at; nil when there is no watchdog.
    let watchdogInterval: Duration?
    #if canImport(CSystemd)
        private let library: SystemdLibrary?
    #endif

    /// Reads the watchdog settings from the environment. `NOTIFY_SOCKET` stays set: it is read again
    /// by every `sd_notify` and no child process is started that could misuse it.
    init() {
        #if canImport(CSystemd)
            library = getenv("NOTIFY_SOCKET") == nil ? nil : SystemdLibrary()
            var microseconds: UInt64 = 0
            if let library, library.functions.watchdog_enabled(0, &microseconds) > 0, microseconds > 0 {
                watchdogInterval = .microseconds(Int64(clamping: microseconds / 2))
            } else {
                watchdogInterval = nil
            }
        #else
            watchdogInterval = nil
        #endif
    }

    /// `READY=1` with a `STATUS=` line that `systemctl status` shows.
    func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// `WATCHDOG=1`: the service is alive; systemd restarts it when this stops for `WatchdogSec`.
    func watchdog() { send("WATCHDOG=1") }

    /// `STATUS=`: a line for `systemctl status`, such as why the service is not ready yet.
    func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    /// `STOPPING=1`: a clean stop has begun.
    func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    private func send(_ message: String) {
        #if canImport(CSystemd)
            _ = library?.functions.notify(0, message)
        #endif
    }

    /// Newlines separate the assignments of a message: a status text must stay on its one line.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

#if canImport(CSystemd)
    /// libsystemd's `sd_notify` and `sd_watchdog_enabled`, opened by file name (Debian's `libsystemd0`,
    /// on every systemd system). An owner of C function pointers: `@unchecked Sendable` because the table
    /// is filled once in `init`, before it is shared, and only read after; both functions may be called
    /// from any thread.
    final class SystemdLibrary: @unchecked Sendable {
        /// The functions, each non-null.
        let functions: csystemd_functions

        /// Nil when the library cannot be opened or lacks a function.
        init?() {
            var functions = csystemd_functions()
            guard csystemd_open("libsystemd.so.0", &functions) == 0 else { return nil }
            self.functions = functions
        }
    }
#endif
