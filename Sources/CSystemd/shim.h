#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
// sd_notify(3) and sd_watchdog_enabled(3): how a Type=notify service tells systemd it is ready, alive
// and stopping. Only these; the rest of libsystemd is not used. The library is opened with dlopen only
// when systemd asked to be told (NOTIFY_SOCKET set), not linked: linked, it and what it loads (gcrypt,
// gpg-error, lz4, lzma, zstd, cap; about 1 MB resident) would be mapped in every process, in a container
// or a shell too (hap2mqtt-bench memory). Nothing links it, so a direct call of an sd_
// function fails to link.
#include <dlfcn.h>
#include <stddef.h>
#include <systemd/sd-daemon.h>

/// The library's functions the notifier calls, each of the type its header declares.
struct csystemd_functions {
    __typeof__(sd_notify) *notify;
    __typeof__(sd_watchdog_enabled) *watchdog_enabled;
};

/// Opens `library` (a file name the dynamic loader looks up, "libsystemd.so.0") and fills `functions`.
/// Returns 0 when both functions were found, else 1 (nothing to tell systemd with).
static inline int csystemd_open(const char *library, struct csystemd_functions *functions) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return 1;
    functions->notify = (__typeof__(functions->notify))dlsym(handle, "sd_notify");
    functions->watchdog_enabled = (__typeof__(functions->watchdog_enabled))dlsym(handle, "sd_watchdog_enabled");
    return functions->notify == NULL || functions->watchdog_enabled == NULL ? 1 : 0;
}
#endif
