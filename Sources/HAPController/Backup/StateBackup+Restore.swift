import Foundation
public import SystemSupport

extension StateBackup {
    /// Writes the backup's files into `directory` (created with mode 0700 when missing), each atomically
    /// with mode 0600, the controller identity last.
    ///
    /// Refused, with nothing changed, when the directory holds a controller identity other than the
    /// backup's or a pairing the backup does not hold (another accessory, or another pairing with the same
    /// one): either would be lost. Restoring over the directory the backup was made of is allowed. When a
    /// write fails, the files written before it are put back as they were.
    /// - Throws: `.stateDirectoryInUse`, `.io`.
    public func restore(into directory: StateDirectory) throws(BackupError) {
        try checkTarget(directory)
        var written: [(name: String, before: [UInt8]?)] = []
        let order = files.keys.sorted().filter { $0 != PairingStore.identityFileName } + [PairingStore.identityFileName]
        do {
            for name in order {
                let before = try directory.read(name, maximumSize: Self.maximumFileSize).map { Array($0) }
                try directory.write(Data(files[name]!), to: name)
                written.append((name, before))
            }
        } catch {
            for file in written.reversed() {
                if let before = file.before {
                    try? directory.write(Data(before), to: file.name)
                } else {
                    try? directory.remove(file.name)
                }
            }
            throw .io(reason: "\(error)")
        }
    }

    /// Refuses a directory whose identity or pairings the restore would replace or orphan.
    private func checkTarget(_ directory: StateDirectory) throws(BackupError) {
        let store = PairingStore(directory: directory)
        let existing: ControllerIdentity?
        do {
            existing = try store.loadIdentity()
        } catch {
            throw .stateDirectoryInUse(directory: directory.path, reason: "holds a controller.json that cannot be read")
        }
        if let existing, existing != identity {
            throw .stateDirectoryInUse(
                directory: directory.path, reason: "holds another controller identity (controller.json)")
        }
        let contents = store.loadPairings()
        let ours = Dictionary(uniqueKeysWithValues: pairings.map { ($0.accessoryPairingID.uppercased(), $0) })
        let others = contents.pairings.filter { pairing in
            guard let mine = ours[pairing.accessoryPairingID.uppercased()] else { return true }
            return mine.accessoryLTPK != pairing.accessoryLTPK
                || mine.controllerPairingID != pairing.controllerPairingID
        }
        let unreadable = contents.problems.count
        guard others.isEmpty, unreadable == 0 else {
            var parts: [String] = []
            if !others.isEmpty {
                parts.append(
                    "holds \(others.count == 1 ? "a pairing" : "\(others.count) pairings") ("
                        + others.map(\.displayName).joined(separator: ", ") + ")")
            }
            if unreadable > 0 {
                parts.append("holds \(unreadable) pairing \(unreadable == 1 ? "file" : "files") that cannot be read")
            }
            throw .stateDirectoryInUse(directory: directory.path, reason: parts.joined(separator: " and "))
        }
    }
}
