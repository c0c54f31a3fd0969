import Foundation

/// A pipe that wakes the MQTT loop thread out of `poll(2)`: another thread queued a packet it could not
/// write at once (the socket's buffer was full), or `disconnect()` was called. Both ends are non-blocking,
/// so a full pipe (the loop is awake and will look anyway) never blocks the signalling thread.
struct WakePipe: Sendable {
    /// The end the loop polls for reading.
    let readEnd: Int32
    let writeEnd: Int32

    /// Opens the pipe.
    /// - Throws: `MQTTError.invalidConfiguration` when the process is out of file descriptors.
    init() throws(MQTTError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .invalidConfiguration(
                "cannot create the MQTT client's wake pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Makes the read end readable until `drain()`.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so that the next `poll(2)` sleeps again.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    /// Closes both ends; called once, when the connection is gone.
    func closeBothEnds() {
        _ = close(readEnd)
        _ = close(writeEnd)
    }
}
