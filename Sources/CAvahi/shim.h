#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H
// Avahi's client library (libavahi-client-dev): browsing and resolving DNS-SD services through the
// avahi-daemon over D-Bus, with its threaded event loop. Opened with dlopen when discovery starts rather
// than linked: linked, it and what it loads (libdbus, libsystemd, gcrypt, ...) would be mapped and relocated
// in every process, also with discovery off (hap2mqtt-bench memory). The headers give the
// types; the functions are called through `struct cavahi_functions`, which `cavahi_open` fills. Nothing
// links the libraries, so a direct call of an avahi_ function fails to link.
#include <dlfcn.h>
#include <stddef.h>
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

/// The libraries' functions discovery calls, each of the type its header declares.
struct cavahi_functions {
    // libavahi-client
    __typeof__(avahi_client_new) *client_new;
    __typeof__(avahi_client_free) *client_free;
    __typeof__(avahi_client_errno) *client_errno;
    __typeof__(avahi_service_browser_new) *service_browser_new;
    __typeof__(avahi_service_browser_free) *service_browser_free;
    __typeof__(avahi_service_resolver_new) *service_resolver_new;
    __typeof__(avahi_service_resolver_free) *service_resolver_free;
    // libavahi-common
    __typeof__(avahi_threaded_poll_new) *threaded_poll_new;
    __typeof__(avahi_threaded_poll_get) *threaded_poll_get;
    __typeof__(avahi_threaded_poll_start) *threaded_poll_start;
    __typeof__(avahi_threaded_poll_stop) *threaded_poll_stop;
    __typeof__(avahi_threaded_poll_free) *threaded_poll_free;
    __typeof__(avahi_strerror) *strerror;
    __typeof__(avahi_address_snprint) *address_snprint;
    __typeof__(avahi_string_list_get_size) *string_list_get_size;
    __typeof__(avahi_string_list_get_text) *string_list_get_text;
    __typeof__(avahi_string_list_get_next) *string_list_get_next;
};

/// Opens `client_library` and `common_library` (file names the dynamic loader looks up, such as
/// "libavahi-client.so.3" and "libavahi-common.so.3") and fills `functions`. Returns 0 when every
/// function was found, 1 when a library cannot be opened, 2 when a function is missing (an older
/// library); then `*library` is the library's name and `*error` the loader's words (valid until the
/// thread's next dl call).
static inline int cavahi_open(
    const char *client_library, const char *common_library, struct cavahi_functions *functions,
    const char **library, const char **error) {
    void *client = dlopen(client_library, RTLD_NOW | RTLD_LOCAL);
    if (client == NULL) {
        *library = client_library;
        *error = dlerror();
        return 1;
    }
    void *common = dlopen(common_library, RTLD_NOW | RTLD_LOCAL);
    if (common == NULL) {
        *library = common_library;
        *error = dlerror();
        return 1;
    }
#define CAVAHI_FIND(handle, name, field, symbol)                                                  \
    if ((functions->field = (__typeof__(functions->field))dlsym(handle, symbol)) == NULL) {       \
        *library = name;                                                                          \
        *error = dlerror();                                                                       \
        return 2;                                                                                 \
    }
    CAVAHI_FIND(client, client_library, client_new, "avahi_client_new")
    CAVAHI_FIND(client, client_library, client_free, "avahi_client_free")
    CAVAHI_FIND(client, client_library, client_errno, "avahi_client_errno")
    CAVAHI_FIND(client, client_library, service_browser_new, "avahi_service_browser_new")
    CAVAHI_FIND(client, client_library, service_browser_free, "avahi_service_browser_free")
    CAVAHI_FIND(client, client_library, service_resolver_new, "avahi_service_resolver_new")
    CAVAHI_FIND(client, client_library, service_resolver_free, "avahi_service_resolver_free")
    CAVAHI_FIND(common, common_library, threaded_poll_new, "avahi_threaded_poll_new")
    CAVAHI_FIND(common, common_library, threaded_poll_get, "avahi_threaded_poll_get")
    CAVAHI_FIND(common, common_library, threaded_poll_start, "avahi_threaded_poll_start")
    CAVAHI_FIND(common, common_library, threaded_poll_stop, "avahi_threaded_poll_stop")
    CAVAHI_FIND(common, common_library, threaded_poll_free, "avahi_threaded_poll_free")
    CAVAHI_FIND(common, common_library, strerror, "avahi_strerror")
    CAVAHI_FIND(common, common_library, address_snprint, "avahi_address_snprint")
    CAVAHI_FIND(common, common_library, string_list_get_size, "avahi_string_list_get_size")
    CAVAHI_FIND(common, common_library, string_list_get_text, "avahi_string_list_get_text")
    CAVAHI_FIND(common, common_library, string_list_get_next, "avahi_string_list_get_next")
#undef CAVAHI_FIND
    return 0;
}
#endif
