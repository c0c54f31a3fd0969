public import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a `HAPController` operation failed. Prints as one line a user can act on.
public enum HAPControllerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Talking to the accessory failed: no connection, a pairing error (`.connection(.pairing(…))`), a time-out, …
    case connection(HAPConnectionError)
    /// The state directory could not be read or written.
    case storage(PairingStoreError)
    /// Pair-setup succeeded, so the accessory now counts this controller as paired, but the pairing could
    /// not be saved: without it this controller cannot reconnect.
    case pairingNotSaved(accessoryPairingID: String, PairingStoreError)
    /// The state directory `directory` has no room for a pairing file (`reason`: `ENOSPC` when the disk
    /// is full), found before pair-setup: the accessory was left unpaired.
    case noRoomForPairing(directory: String, SystemCallError)
    /// No stored pairing has this name or accessory id; `known` lists the names there are.
    case unknownPairing(String, known: [String])
    /// More than one stored pairing has this name; `matches` lists their accessory ids.
    case ambiguousPairing(String, matches: [String])
    /// Another accessory's pairing already has this name.
    case nameInUse(String)
    /// Pair-setup's first exchange with `host`:`port` failed as no HAP accessory server fails (`reason`:
    /// the connection broke, or the answer was not HTTP or not HAP's): most likely something else listens
    /// there, such as an MQTT broker or a web server.
    case notAnAccessory(host: String, port: UInt16, reason: HAPConnectionError)
    /// Pair-setup found the accessory paired already, and this controller has a pairing, `name`, with the
    /// same address: most likely the accessory is paired with this controller.
    case alreadyPairedHere(name: String)
    /// Pair-setup found the accessory paired already, and a pair-setup with the same address was
    /// interrupted before (`PendingPairSetup`): the accessory most likely holds that pairing, which no
    /// controller can use, and must be reset.
    case interruptedPairing(PendingPairSetup)
    /// The pairing `name` could not be removed on the accessory, so it was kept here too.
    case unpairFailed(name: String, reason: HAPConnectionError)

    /// The `PairingError` inside, when the failure was a pairing step.
    public var pairingError: PairingError? {
        switch self {
        case .connection(.pairing(let error)): return error
        case .alreadyPairedHere, .interruptedPairing: return .alreadyPaired
        case .unpairFailed(_, .pairing(let error)): return error
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .connection(let error):
            return error.description
        case .storage(let error):
            return error.description
        case .pairingNotSaved(let id, let error):
            return
                "the accessory \(id) is now paired, but the pairing could not be saved (\(error)): fix the state directory, then reset the accessory and pair again"
        case .noRoomForPairing(let directory, let error):
            let full = [ENOSPC, EDQUOT, EFBIG].contains(error.code)
            return (full ? "not enough space in \(directory)" : "cannot write in \(directory)")
                + " for a pairing file (\(error.reason)): the accessory was left unpaired; "
                + (full ? "free some space there" : "make the directory writable") + " and pair again"
        case .unknownPairing(let name, let known):
            let list =
                known.isEmpty
                ? "there are no pairings" : "the pairings are " + known.map { "\"\($0)\"" }.joined(separator: ", ")
            return "no pairing named \"\(name)\": \(list)"
        case .ambiguousPairing(let name, let matches):
            return "\"\(name)\" names several pairings (\(matches.joined(separator: ", "))): use the accessory id"
        case .nameInUse(let name):
            return "a pairing named \"\(name)\" exists already: choose another name"
        case .notAnAccessory(let host, let port, let reason):
            let endpoint = TCPError.endpoint(host, port)
            let cause: String
            switch reason {
            case .connectionLost(let error): cause = error.description
            case .malformedHTTP(let error): cause = "the answer is not HTTP: \(error)"
            default: cause = reason.description
            }
            return "pair-setup with \(endpoint) failed (\(cause)): is \(endpoint) a HomeKit accessory? "
                + "Check the host and port it announces (avahi-browse -rt _hap._tcp)"
        case .alreadyPairedHere(let name):
            return "the accessory is already paired, and \"\(name)\" is this controller's pairing at that address: "
                + "it needs no new one (if it does not answer, unpair it and pair again)"
        case .interruptedPairing(let pending):
            return
                "the accessory is already paired: the pair-setup with \(TCPError.endpoint(pending.host, pending.port)) "
                + "that began at \(pending.startedDescription) was interrupted before the pairing was saved, so the "
                + "accessory most likely holds a pairing no controller can use: reset the accessory (see its manual) and pair again"
        case .unpairFailed(let name, let reason):
            return "cannot remove the pairing from \(name) (\(reason)); the pairing was kept"
        }
    }
}

/// What `HAPController.unpair` did.
public enum UnpairOutcome: Sendable, Hashable {
    /// The accessory removed the pairing, then the local pairing was deleted.
    case removed
    /// The accessory did not know this controller any more (it was reset, or another controller removed
    /// the pairing); the local pairing was deleted.
    case alreadyRemovedOnAccessory
    /// Forced: the accessory could not be told (`reason`), so it may still list this controller; the
    /// local pairing was deleted.
    case removedLocallyOnly(reason: HAPConnectionError)
}
