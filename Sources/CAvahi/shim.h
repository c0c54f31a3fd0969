#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H
// Avahi's client library (libavahi-client-dev): browsing and resolving DNS-SD services through the
// avahi-daemon over D-Bus, with its threaded event loop.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#endif
