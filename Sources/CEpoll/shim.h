#ifndef CEPOLL_SHIM_H
#define CEPOLL_SHIM_H
// epoll(7) for the HAP read loop (Sources/HAPController/Transport/ReadLoop.swift): Swift's Glibc module
// does not export <sys/epoll.h>, and its packed epoll_event with a union inside is plainer to fill in C.
#include <stdint.h>
#if defined(__linux__)
#include <sys/epoll.h>
/// A new epoll instance (close-on-exec), or -1 with errno.
static inline int hap2mqtt_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
/// Watches `fd` for input, level-triggered (hang-ups and errors are always reported), tagged `tag`.
/// Returns 0, or -1 with errno.
static inline int hap2mqtt_epoll_add(int epfd, int fd, uint64_t tag) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data = {.u64 = tag}};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}
/// Stops watching `fd`. Returns 0, or -1 with errno.
static inline int hap2mqtt_epoll_remove(int epfd, int fd) {
    struct epoll_event event = {0};
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}
/// Waits for descriptors with input (or hung up); writes the tags of at most `capacity` (at most 64) of
/// them to `tags`. Returns how many, or -1 with errno.
static inline int hap2mqtt_epoll_wait(int epfd, uint64_t *tags, int capacity, int timeoutMilliseconds) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, timeoutMilliseconds);
    for (int i = 0; i < count; i++) tags[i] = events[i].data.u64;
    return count;
}
#endif
#endif
