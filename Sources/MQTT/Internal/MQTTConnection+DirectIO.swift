import CMosquitto
import Foundation
import Synchronization

/// Driving an established connection by hand: `poll(2)` on the socket and the wake pipe, then
/// `mosquitto_loop_read`, `mosquitto_loop_misc` and `mosquitto_loop_write`; and a publisher writing its
/// own packets at once (`writeQueued()`), so that a publish is a write to the socket rather than a byte to
/// libmosquitto's wake-up socket and a switch to the loop thread (hap2mqtt-bench latency, command and
/// fanout; Benchmarks/README.md). While connecting, `mosquitto_loop` drives the attempt as before: the TLS
/// handshake, CONNECT and CONNACK stay libmosquitto's.
///
/// Lock order: `directIO` before `state`. libmosquitto's callbacks lock `state` and may run inside any
/// read or write, so nothing here may be called with `state` locked.
extension MQTTConnection {
    /// Writes what libmosquitto has queued (this caller's packets and any before them) from the calling
    /// thread, when the loop drives the connection by hand; otherwise `mosquitto_loop` writes them, woken
    /// by libmosquitto itself. A write that could not finish (full socket buffer) or that ended the
    /// connection wakes the loop, which then waits for the socket to take more, or ends the attempt.
    ///
    /// When another thread holds `directIO` (the loop reading, or writing a PUBACK, or another
    /// publisher), the caller does not wait for it: it leaves `writeWanted` set, and the holder writes
    /// the packets when it lets go (`writeIfWanted()`), in the order they were queued. Waiting cost a
    /// `/set`'s answer a futex wait and a wake-up behind the PUBACK of its own command
    /// (hap2mqtt-bench command, Benchmarks/README.md).
    func writeQueued() {
        writeWanted.store(true, ordering: .sequentiallyConsistent)
        // Pairs with the fence in `writeIfWanted()`: either this caller gets the lock, or the holder,
        // after letting go, sees the flag.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        while writeWanted.load(ordering: .sequentiallyConsistent) {
            guard writeIfFree() else { return }
        }
    }

    /// Called by a thread that has just let go of `directIO`: writes the packets of publishers that
    /// found it taken meanwhile. One pass only: on the loop thread, publishers that never stop (an
    /// event flood) must not keep it from reading; what they queue during the pass leaves
    /// `mosquitto_want_write` true, and the loop's next turn writes it.
    private func writeIfWanted() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if writeWanted.load(ordering: .sequentiallyConsistent) { _ = writeIfFree() }
    }

    /// Writes what is queued unless another thread holds `directIO`; returns false when one does.
    private func writeIfFree() -> Bool {
        let taken = directIO.withLockIfAvailable { direct -> Bool in
            writeWanted.store(false, ordering: .sequentiallyConsistent)
            guard direct else { return false }
            _ = writePackets()
            return mosquitto_socket(pointer) < 0 || mosquitto_want_write(pointer)
        }
        guard let wakeLoop = taken else { return false }
        if wakeLoop { wakePipe.signal() }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return true
    }

    /// `mosquitto_loop_write`, which writes every queued packet with a `write(2)` of its own, each of
    /// which would leave as a TCP segment of its own (`TCP_NODELAY`): with more than one PUBLISH queued
    /// the socket is corked meanwhile (Linux `TCP_CORK`), so that a batch leaves in as few segments as its
    /// size needs, and uncorked at once after, which sends the rest. A single packet (a lone change, a
    /// `/set` answer) goes out as before, without the two `setsockopt(2)` calls. Called with `directIO`
    /// held, so libmosquitto cannot close the socket between the calls.
    private func writePackets() -> Int32 {
        #if os(Linux)
            let socket = mosquitto_socket(pointer)
            let cork = unwrittenPublishes.exchange(0, ordering: .relaxed) > 1 && socket >= 0
            if cork { setCork(socket, true) }
            let rc = mosquitto_loop_write(pointer, 1)
            // An error may have closed the socket; its number may not be used after that.
            if cork, mosquitto_socket(pointer) == socket { setCork(socket, false) }
            return rc
        #else
            unwrittenPublishes.store(0, ordering: .relaxed)
            return mosquitto_loop_write(pointer, 1)
        #endif
    }

    #if os(Linux)
        private func setCork(_ socket: Int32, _ on: Bool) {
            var value: Int32 = on ? 1 : 0
            _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    #endif

    /// Switches between `mosquitto_loop` (false: connecting) and driving by hand (true: established);
    /// only the loop thread calls it, between turns.
    ///
    /// On an established plain-TCP connection libmosquitto's log callback is removed unless
    /// `logLibraryDebug` is on: libmosquitto formats a debug line into a fresh buffer for every packet sent
    /// or received once a callback is installed (hap2mqtt-bench fanout, Benchmarks/README.md), and what it
    /// logs above debug level then is a warning about an acknowledgement of an unknown packet id; what
    /// ends a connection still arrives as its return code. While connecting, and on TLS, whose handshake
    /// and record errors reach us only through the log, the callback stays.
    func driveDirectly(_ direct: Bool) {
        directIO.withLock { $0 = direct }
        writeIfWanted()
        if !endpoint.usesTLS, !configuration.logLibraryDebug { listenToLibraryLog(!direct) }
    }

    /// One turn of the loop on an established connection: waits up to 250 ms (which bounds how late a
    /// timeout or a stop is noticed) for the socket or the wake pipe, then reads what arrived, keeps the
    /// connection alive and writes what is queued. Returns libmosquitto's result, as `mosquitto_loop` would.
    func turnDirectly() -> Int32 {
        let socket = mosquitto_socket(pointer)
        guard socket >= 0 else { return MosquittoError.noConnection }
        let events = Int16(POLLIN) | (mosquitto_want_write(pointer) ? Int16(POLLOUT) : 0)
        var fds = [
            pollfd(fd: socket, events: events, revents: 0),
            pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&fds, nfds_t(fds.count), 250) < 0, errno != EINTR { return MOSQ_ERR_ERRNO.rawValue }
        if fds[1].revents != 0 { wakePipe.drain() }
        let readable = fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        let rc = directIO.withLock { _ -> Int32 in
            var rc = MosquittoError.success
            if readable { rc = mosquitto_loop_read(pointer, 1) }
            if rc == MosquittoError.success, mosquitto_socket(pointer) >= 0 { rc = mosquitto_loop_misc(pointer) }
            if rc == MosquittoError.success, mosquitto_socket(pointer) >= 0, mosquitto_want_write(pointer) {
                rc = writePackets()
            }
            return rc
        }
        writeIfWanted()
        return rc
    }
}
