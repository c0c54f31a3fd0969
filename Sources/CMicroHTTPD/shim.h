#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
// libmicrohttpd's MHD_start_daemon takes its options as C variadic arguments, which Swift cannot pass:
// this fixed-argument wrapper passes the few options the web page's server sets.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon listening on `address` (an IPv4 or IPv6 socket address; `flags` must include
/// MHD_USE_IPv6 for IPv6), at most `connection_limit` connections at once, idle ones closed after
/// `timeout_seconds`, each connection's request memory at most `memory_limit` bytes.
static inline struct MHD_Daemon *cmhd_start_daemon(
    unsigned int flags, const struct sockaddr *address, unsigned int connection_limit, unsigned int timeout_seconds,
    size_t memory_limit, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system chose when the address asked for port 0).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
