#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H
// glibc's malloc tuning (mallopt, malloc_trim, mallinfo2), which Swift's Glibc module does not export.
#include <stddef.h>
// glibc's <features.h>, through <stdlib.h>, defines __GLIBC__: without a libc header before the test below,
// it is never defined, and every function here would be the no-op of other systems.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
/// Caps how many malloc arenas glibc creates (M_ARENA_MAX). Returns 1 on success, 0 otherwise.
static inline int hap2mqtt_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
/// Fixes the size from which glibc serves an allocation with its own mmap (M_MMAP_THRESHOLD), which a
/// free gives back to the system at once; set, it no longer grows with the largest block freed.
/// Returns 1 on success, 0 otherwise.
static inline int hap2mqtt_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
/// Gives free heap pages back to the system (malloc_trim(0)). Returns 1 when memory was released.
static inline int hap2mqtt_trim_heap(void) { return malloc_trim(0); }
/// Bytes of free chunks malloc holds (mallinfo2().fordblks), 0 before glibc 2.33.
static inline size_t hap2mqtt_free_heap_bytes(void) {
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)
    return mallinfo2().fordblks;
#else
    return 0;
#endif
}
#else
static inline int hap2mqtt_limit_malloc_arenas(int count) { (void)count; return 0; }
static inline int hap2mqtt_set_mmap_threshold(int bytes) { (void)bytes; return 0; }
static inline int hap2mqtt_trim_heap(void) { return 0; }
static inline size_t hap2mqtt_free_heap_bytes(void) { return 0; }
#endif
#endif
