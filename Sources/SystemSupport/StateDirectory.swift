public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The gateway's state directory (default `./data`): controller identity, pairings, the slug map
/// (docs/DESIGN.md "Configuration and files").
///
/// Every file is written atomically: a temporary file in the same directory, `fsync`, `rename`, then an
/// `fsync` of the directory, with mode 0600, so a crash leaves either the old or the new file and never
/// a torn one. The directory itself is created with mode 0700.
public struct StateDirectory: Sendable, Hashable {
    /// The directory's path.
    public let path: String

    public init(path: String) { self.path = path }

    /// The full path of `name` inside the directory.
    public func url(_ name: String) -> URL { URL(fileURLWithPath: path).appendingPathComponent(name) }

    /// Creates the directory (and parents) with mode 0700 when missing.
    /// - Throws: `StateDirectoryError.io` when it cannot be created.
    public func create() throws(StateDirectoryError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io(path: path, reason: "cannot create directory: \(error.localizedDescription)")
        }
    }

    /// Reads `name`; nil when the file does not exist (or is a symbolic link to nothing).
    /// - Parameter maximumSize: the most bytes a file of its kind can hold; a larger one is an error.
    /// - Throws: `StateDirectoryError.io` when it exists but cannot be read, with the system's reason
    ///   (`cannot read file: Permission denied`, `… Is a directory`), or is larger than `maximumSize`.
    public func read(_ name: String, maximumSize: Int = .max) throws(StateDirectoryError) -> Data? {
        let file = url(name).path
        do throws(SystemCallError) {
            return Data(try SystemCall.readFile(atPath: file, maximumSize: maximumSize))
        } catch {
            if error.call == "open", error.code == ENOENT { return nil }
            // Past the limit: a huge file in place of a small one (a mistake, or an attack on a shared
            // volume) must not cost memory, nor CPU at every poll.
            if error.code == EFBIG {
                throw .io(
                    path: file, reason: "the file is larger than \(maximumSize) bytes, which no file of its kind is")
            }
            throw .io(path: file, reason: "cannot read file: \(error.reason)")
        }
    }

    /// Writes `data` to `name` atomically with mode 0600 (temporary file, fsync, rename, fsync of the
    /// directory).
    /// - Parameter durable: false leaves out both fsyncs, for a file rewritten every few seconds whose
    ///   loss in a crash costs nothing (`health.json`): on an SD card every fsync wears the flash. The
    ///   rename still keeps a reader from ever seeing half a file.
    /// - Throws: `StateDirectoryError.io` naming the file and the system error.
    public func write(_ data: Data, to name: String, durable: Bool = true) throws(StateDirectoryError) {
        if durable { NonBlockingThread.checkMayBlock("fsync of \(name)") }
        try create()
        let final = url(name).path
        let temp = final + StateDirectory.temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: temp, reason: String(cString: strerror(errno))) }
        var failure: Int32? = data.withUnsafeBytes { raw in
            do throws(SystemCallError) {
                try SystemCall.writeAll(raw, to: fd)
                return nil
            } catch {
                return error.code
            }
        }
        if failure == nil, durable, fsync(fd) != 0 { failure = errno }
        close(fd)
        if let failure {
            unlink(temp)
            throw .io(path: final, reason: String(cString: strerror(failure)))
        }
        guard rename(temp, final) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw .io(path: final, reason: reason)
        }
        guard durable else { return }
        let dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }

    /// Removes `name` if it exists.
    /// - Throws: `StateDirectoryError.io` when it exists and cannot be removed.
    public func remove(_ name: String) throws(StateDirectoryError) {
        let file = url(name).path
        guard FileManager.default.fileExists(atPath: file) else { return }
        guard unlink(file) == 0 else { throw .io(path: file, reason: String(cString: strerror(errno))) }
    }

    /// Moves the damaged file `name` aside to `<name>.corrupt`, or `<name>.corrupt.2`, `.3`, … when an
    /// earlier damaged copy has that name already: each copy is the user's to look at, so none replaces
    /// another. Returns the name it has now.
    /// - Throws: `StateDirectoryError.io` naming the file when it cannot be moved; it then stays as it is.
    @discardableResult
    public func moveAside(_ name: String) throws(StateDirectoryError) -> String {
        let file = url(name).path
        for number in 1...1000 {
            let aside = name + ".corrupt" + (number == 1 ? "" : ".\(number)")
            // link() fails with EEXIST instead of replacing, so a copy that appears meanwhile is kept too.
            let target = url(aside).path
            if link(file, target) == 0 {
                guard unlink(file) == 0 else { throw .io(path: file, reason: String(cString: strerror(errno))) }
                return aside
            }
            let failure = errno
            if failure == EEXIST { continue }
            // A file system without hard links (FAT, some network mounts): a rename to a name free now.
            if [EPERM, ENOTSUP, EXDEV].contains(failure), !FileManager.default.fileExists(atPath: target) {
                if rename(file, target) == 0 { return aside }
            }
            if FileManager.default.fileExists(atPath: target) { continue }
            throw .io(path: file, reason: "cannot move it aside to \(aside): \(String(cString: strerror(failure)))")
        }
        throw .io(path: file, reason: "cannot move it aside: \(name).corrupt to \(name).corrupt.1000 exist already")
    }

    /// The names of the files in the directory whose names end in `suffix` (none when it does not exist).
    public func files(withSuffix suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(suffix) && !$0.contains(StateDirectory.temporaryMarker) }
            .sorted()
    }

    /// What the temporary file of a write adds to the final name, before the writer's process id and a
    /// random number: `slugs.json.tmp-4242-2718281828`.
    static let temporaryMarker = ".tmp-"

    /// Removes the temporary files that writes left behind (a process killed between creating one and
    /// renaming it), and returns their names. A temporary file is stale when the process that made it no
    /// longer runs, or when that was the calling process, or another one with the same id (containers
    /// start at the same process id every time): so call this only before this process writes, at start.
    /// A file of another process that runs (a `hap2mqtt pair` saving its pairing right now) is kept.
    /// Until then each is as private as the file it was to become (mode 0600, `write(_:to:)`).
    /// - Throws: `StateDirectoryError.io` naming a stale file that cannot be removed.
    @discardableResult
    public func removeStaleTemporaryFiles() throws(StateDirectoryError) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        var removed: [String] = []
        for name in names {
            guard let marker = name.range(of: StateDirectory.temporaryMarker, options: .backwards) else { continue }
            let owner = name[marker.upperBound...].split(separator: "-", maxSplits: 1).first.flatMap { pid_t($0) }
            guard let owner, owner > 0 else { continue }
            // kill(pid, 0) sends nothing; ESRCH means no such process (EPERM: it runs as another user).
            let running = owner != getpid() && (kill(owner, 0) == 0 || errno == EPERM)
            guard !running else { continue }
            let file = url(name).path
            guard unlink(file) == 0 || errno == ENOENT else {
                throw .io(path: file, reason: String(cString: strerror(errno)))
            }
            removed.append(name)
        }
        return removed
    }
}
