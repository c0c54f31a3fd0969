#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
// sd_notify(3) and sd_watchdog_enabled(3): how a Type=notify service tells systemd it is ready, alive
// and stopping. Only these; the rest of libsystemd is not used.
#include <systemd/sd-daemon.h>
#endif
