#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
// libmicrohttpd, the web page's HTTP server, opened with dlopen when the page starts rather than linked:
// linked, the library and what it loads (GnuTLS, p11-kit, nettle, gmp, ...) would be mapped, relocated
// and their constructors run in every process, also with the page off (hap2mqtt-bench memory). Its
// header gives the types; its functions are called through `struct cmhd_functions`, which `cmhd_open` fills.
// Nothing links the library, so a direct call of an MHD_ function fails to link.
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// The library's functions the web page calls, each of the type its header declares.
struct cmhd_functions {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
};

/// Opens `library` (a file name the dynamic loader looks up, such as "libmicrohttpd.so.12"; NULL: the
/// program and what it links, for systems that link the library) and fills `functions`. Returns 0 when
/// every function was found, 1 when the library cannot be opened, 2 when a function is missing (an older
/// library); then `*error` is the loader's words (valid until the thread's next dl call).
static inline int cmhd_open(const char *library, struct cmhd_functions *functions, const char **error) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        *error = dlerror();
        return 1;
    }
#define CMHD_FIND(field, symbol)                                                  \
    if ((functions->field = (__typeof__(functions->field))dlsym(handle, symbol)) == NULL) { \
        *error = dlerror();                                                       \
        return 2;                                                                 \
    }
    CMHD_FIND(start_daemon, "MHD_start_daemon")
    CMHD_FIND(stop_daemon, "MHD_stop_daemon")
    CMHD_FIND(get_daemon_info, "MHD_get_daemon_info")
    CMHD_FIND(lookup_connection_value, "MHD_lookup_connection_value")
    CMHD_FIND(create_response_from_buffer, "MHD_create_response_from_buffer")
    CMHD_FIND(create_response_from_callback, "MHD_create_response_from_callback")
    CMHD_FIND(destroy_response, "MHD_destroy_response")
    CMHD_FIND(add_response_header, "MHD_add_response_header")
    CMHD_FIND(queue_response, "MHD_queue_response")
#undef CMHD_FIND
    return 0;
}

// MHD_start_daemon takes its options as C variadic arguments, which Swift cannot pass: this
// fixed-argument wrapper passes the few options the web page's server sets.

/// Starts a daemon listening on `address` (an IPv4 or IPv6 socket address; `flags` must include
/// MHD_USE_IPv6 for IPv6), at most `connection_limit` connections at once, idle ones closed after
/// `timeout_seconds`, each connection's request memory at most `memory_limit` bytes.
static inline struct MHD_Daemon *cmhd_start_daemon(
    const struct cmhd_functions *functions, unsigned int flags, const struct sockaddr *address,
    unsigned int connection_limit, unsigned int timeout_seconds, size_t memory_limit,
    MHD_AccessHandlerCallback handler, void *handler_context, MHD_RequestCompletedCallback completed,
    void *completed_context) {
    return functions->start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system chose when the address asked for port 0).
static inline uint16_t cmhd_bound_port(const struct cmhd_functions *functions, struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = functions->get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
