import Glibc
import HAPController
import HomeModel
import HomeStore
import Logging
import SystemSupport

/// Follows the state directory's pairings while `hap2mqtt run` runs, so that `hap2mqtt pair`, `hap2mqtt
/// unpair` and a pairing file corrected by hand take effect without a restart:
///
/// - a new pairing gets a provider, and its accessories appear;
/// - a pairing removed from the directory has its provider removed, and every topic its accessories had
///   is cleared (as docs/DESIGN.md says for an accessory that goes away);
/// - a pairing that changed (made again after an accessory reset, or a new host or port) gets a new
///   provider in the old one's place; its accessories keep their topics. A pairing file written again
///   counts as changed even when its contents are the same: pairing again with a reset accessory gives
///   the same keys, and the old provider has stopped trying. A new host or port that the provider saved
///   itself, having followed its accessory there (`HAPController.saveAddress`), changes nothing.
///
/// The directory is read every `interval` (a few small files); a pairing file that cannot be read is
/// reported once and leaves its pairing's provider as it is, since a damaged file is not an unpair.
actor PairingWatcher {
    /// How often the state directory is read.
    static let interval = Duration.seconds(2)

    /// A file's identity and modification time: a new file (the store writes by renaming) or a new time.
    private struct FileStamp: Equatable {
        var inode: UInt64
        var seconds: Int
        var nanoseconds: Int
    }

    private let store: HomeStore
    private let stateDirectory: StateDirectory
    private let pairingStore: PairingStore
    private let makeProvider: @Sendable (Pairing) -> any AccessoryProvider
    private let isFollowedAddress: @Sendable (Pairing) -> Bool
    private let logger: Logger
    /// The pairings with providers in the store, by accessory pairing id.
    private var known: [String: Pairing]
    private var reportedProblems: Set<String>
    /// Told the accessory pairing id of each pairing removed, after its provider is (`onPairingRemoved`).
    private var pairingRemoved: (@Sendable (String) async -> Void)?

    /// Sets what to tell of each pairing removed: the gateway frees its accessories' names.
    func onPairingRemoved(_ action: @escaping @Sendable (String) async -> Void) { pairingRemoved = action }

    /// A watcher of `stateDirectory` for `store`, which has a provider for each of `pairings`.
    /// - Parameters:
    ///   - problems: the pairing files already reported as unreadable (not reported again).
    ///   - logger: where the changes it takes up are reported.
    ///   - isFollowedAddress: whether a pairing's host and port are those its provider saved after
    ///     following the accessory (`HAPController.isFollowedAddress(of:)`).
    init(
        store: HomeStore, stateDirectory: StateDirectory, pairings: [Pairing], problems: Set<String> = [],
        logger: Logger, makeProvider: @escaping @Sendable (Pairing) -> any AccessoryProvider,
        isFollowedAddress: @escaping @Sendable (Pairing) -> Bool = { _ in false }
    ) {
        self.logger = logger
        self.reportedProblems = problems
        self.isFollowedAddress = isFollowedAddress
        self.store = store
        self.stateDirectory = stateDirectory
        self.pairingStore = PairingStore(directory: stateDirectory)
        self.makeProvider = makeProvider
        self.known = Dictionary(pairings.map { ($0.accessoryPairingID, $0) }, uniquingKeysWith: { first, _ in first })
        for id in known.keys { stamps[id] = Self.stamp(stateDirectory, id) }
    }

    /// The stamps of the known pairings' files when they were last taken in.
    private var stamps: [String: FileStamp] = [:]

    private static func stamp(_ directory: StateDirectory, _ id: String) -> FileStamp? {
        var info = stat()
        guard stat(directory.url(PairingStore.fileName(forAccessory: id)).path, &info) == 0 else { return nil }
        return FileStamp(inode: UInt64(info.st_ino), seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }

    /// Whether `b` is `a` at another host or port, and nothing else changed.
    private static func onlyAddressDiffers(_ a: Pairing, _ b: Pairing) -> Bool {
        var moved = a
        moved.host = b.host
        moved.port = b.port
        return moved == b && moved != a
    }

    /// Checks the directory every `interval` until the task is cancelled.
    func run(interval: Duration = PairingWatcher.interval) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            await check()
        }
    }

    /// The check under way, which the next one waits for.
    private var lastCheck: Task<Void, Never>?

    /// Reads the pairings once and brings the store's providers in line with them. Checks run one after
    /// the other: the periodic one and one asked for after a pair (`Management`) must not both add a
    /// provider for one new pairing.
    func check() async {
        let previous = lastCheck
        let next = Task {
            await previous?.value
            await checkOnce()
        }
        lastCheck = next
        await next.value
    }

    private func checkOnce() async {
        let contents = pairingStore.loadPairings()
        let problems = Set(contents.problems.map(\.description))
        for problem in problems.subtracting(reportedProblems).sorted() {
            logger.warning("skipped a pairing file: \(problem)")
        }
        reportedProblems = problems
        let unreadable = Set(contents.problems.compactMap(\.fileName))

        var current = Dictionary(
            contents.pairings.map { ($0.accessoryPairingID, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, pairing) in known
        where current[id] == nil && unreadable.contains(PairingStore.fileName(forAccessory: id)) {
            current[id] = pairing
        }
        for (id, pairing) in known.sorted(by: { $0.key < $1.key }) where current[id] == nil {
            logger.notice(
                "the pairing with \(pairing.displayName) (\(id)) was removed; its accessories and their topics go too")
            await store.removeProvider(id: HAPAccessoryProvider.providerID(for: pairing))
            await pairingRemoved?(id)
        }
        for (id, pairing) in current.sorted(by: { $0.key < $1.key }) {
            // A damaged file leaves its provider as it is until the file can be read again.
            if unreadable.contains(PairingStore.fileName(forAccessory: id)), known[id] != nil { continue }
            guard let old = known[id] else {
                logger.notice(
                    "new pairing with \(pairing.displayName) (\(id)) at \(pairing.host):\(pairing.port); connecting")
                // A provider with that id exists when the file was unreadable at start: the new one takes
                // its place and its accessories.
                let provider = makeProvider(pairing)
                if !(await store.replaceProvider(id: HAPAccessoryProvider.providerID(for: pairing), with: provider)) {
                    await store.add(provider)
                }
                continue
            }
            let stamp = Self.stamp(stateDirectory, id)
            guard old != pairing || stamp != stamps[id] else { continue }
            if Self.onlyAddressDiffers(old, pairing), isFollowedAddress(pairing) { continue }
            logger.notice(
                "the pairing with \(pairing.displayName) (\(id)) changed; connecting with it at \(pairing.host):\(pairing.port)"
            )
            let replacement = makeProvider(pairing)
            if !(await store.replaceProvider(id: HAPAccessoryProvider.providerID(for: old), with: replacement)) {
                await store.add(replacement)
            }
        }
        known = current
        stamps = stamps.filter { current[$0.key] != nil }
        for id in current.keys where !unreadable.contains(PairingStore.fileName(forAccessory: id)) {
            stamps[id] = Self.stamp(stateDirectory, id)
        }
    }
}
