#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H
// glibc's malloc tuning (mallopt), which Swift's Glibc module does not export.
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
/// Caps how many malloc arenas glibc creates (M_ARENA_MAX). Returns 1 on success, 0 otherwise.
static inline int hap2mqtt_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
#else
static inline int hap2mqtt_limit_malloc_arenas(int count) { (void)count; return 0; }
#endif
#endif
