#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Room taken in the state directory's file system ahead of a write that must not fail: a file of
/// `bytes` bytes, named like a write's temporary file (`<name>.tmp-<pid>-<random>`), so that
/// `StateDirectory.removeStaleTemporaryFiles()` removes it after a crash of the process that made it.
/// `release()` deletes it just before the write that needs its room.
public struct SpaceReservation: Sendable {
    /// The reserving file's name in the directory.
    public let fileName: String
    /// The directory it is in.
    public let directory: StateDirectory

    /// Writes the reserving file and flushes it to the disk, so that its blocks are allocated.
    /// - Throws: `SystemCallError` (`open`, `write` or `fsync`; `ENOSPC` when the disk is full), after
    ///   removing what was written.
    init(bytes: Int, for name: String, in directory: StateDirectory) throws(SystemCallError) {
        NonBlockingThread.checkMayBlock("reserving space for \(name)")
        self.directory = directory
        fileName = name + StateDirectory.temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let path = directory.url(fileName).path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError(call: "open", code: errno) }
        // Not zeros: a compressing file system (btrfs, ZFS) stores those in no space at all.
        let filler = (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        var failure: SystemCallError? = filler.withUnsafeBytes { raw in
            do throws(SystemCallError) {
                try SystemCall.writeAll(raw, to: fd)
                return nil
            } catch {
                return error
            }
        }
        // ext4 and others allocate only when they flush: a write can succeed in a full file system.
        if failure == nil, fsync(fd) != 0 { failure = SystemCallError(call: "fsync", code: errno) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// Deletes the reserving file, giving its room back; nothing when it is gone already.
    public func release() {
        unlink(directory.url(fileName).path)
    }
}

extension StateDirectory {
    /// Takes `bytes` of room in the directory's file system for a later write that must succeed (a
    /// pairing file, which the accessory cannot be asked for again), as a file named after `name`.
    /// - Throws: `SystemCallError` when the room cannot be taken (`ENOSPC`: the disk is full).
    public func reserveSpace(_ bytes: Int, for name: String) throws(SystemCallError) -> SpaceReservation {
        try SpaceReservation(bytes: bytes, for: name, in: self)
    }
}
