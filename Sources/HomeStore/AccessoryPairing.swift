/// Pairing and unpairing accessory servers, for the operations that manage the gateway (`Management` in
/// the `Gateway` module, which the command line, the MQTT bridge API and the web page all call) without
/// knowing the backend: the executable wires the HAP controller to it (docs/DESIGN.md "Parts": small
/// protocols beside `AccessoryProvider`). Call `Management`, not this: it adds the checks, the one pair at
/// a time and the gateway's part.
public protocol AccessoryPairing: Sendable {
    /// Pairs with the accessory server `request` names (by `host` and `port`, or by its device `id` where
    /// the backend can find it) and saves the pairing. The setup code is never logged or kept.
    /// - Throws: `ManagementError`: `.invalidRequest`, `.invalidSetupCode`, `.wrongSetupCode`,
    ///   `.alreadyPaired`, `.unreachable`, `.failed`, each with the line a user can act on.
    func pair(_ request: PairRequest) async throws(ManagementError) -> PairedServer

    /// Removes the pairing `nameOrID` (a pairing name or an accessory pairing id) on the accessory, then
    /// here. Without `force`, a pairing the accessory cannot be told about is kept.
    /// - Throws: `ManagementError`: `.unknownAccessory`, `.unreachable` (the pairing kept), `.failed`.
    func unpair(_ nameOrID: String, force: Bool) async throws(ManagementError) -> UnpairResult

    /// The pairings and what goes with them, as one archive sealed with `passphrase` (docs/backup.md), the
    /// form `hap2mqtt restore` reads. The passphrase is never logged or kept.
    /// - Throws: `ManagementError`: `.invalidRequest` for a passphrase too short, `.failed` when there is
    ///   nothing to back up or the state cannot be read.
    func backup(passphrase: [UInt8]) async throws(ManagementError) -> [UInt8]

    /// The controllers paired with the accessory server `nameOrID` (List Pairings, HAP spec §5.12), as
    /// the accessory answers.
    /// - Throws: `ManagementError`: `.unknownAccessory`, `.unreachable`, `.failed` with the accessory's
    ///   error (this gateway not an admin, and others).
    func controllerPairings(of nameOrID: String) async throws(ManagementError) -> ControllerPairings

    /// Adds `controller` to the accessory server `nameOrID` (Add Pairing, HAP spec §5.10); returns the
    /// pairings it then lists. This gateway's own pairing id is refused before anything is sent.
    /// - Throws: as `controllerPairings(of:)`, and `.invalidRequest` for this gateway's own id.
    func addControllerPairing(_ controller: ControllerPairing, to nameOrID: String) async throws(ManagementError)
        -> ControllerPairings

    /// Removes the controller `pairingID` from the accessory server `nameOrID` (Remove Pairing, HAP spec
    /// §5.11); returns the pairings it then lists. This gateway's own pairing is refused before anything
    /// is sent: `unpair` removes it, and forgets it here too.
    /// - Throws: as `controllerPairings(of:)`, and `.invalidRequest` for this gateway's own id.
    func removeControllerPairing(_ pairingID: String, from nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
}

extension AccessoryPairing {
    /// A backend without controller pairings of its kind has none to list.
    public func controllerPairings(of nameOrID: String) async throws(ManagementError) -> ControllerPairings {
        throw .failed("this gateway's accessories have no controller pairings to manage")
    }

    /// A backend without controller pairings of its kind has none to add.
    public func addControllerPairing(_ controller: ControllerPairing, to nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
    {
        throw .failed("this gateway's accessories have no controller pairings to manage")
    }

    /// A backend without controller pairings of its kind has none to remove.
    public func removeControllerPairing(_ pairingID: String, from nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
    {
        throw .failed("this gateway's accessories have no controller pairings to manage")
    }

    /// A backend that keeps no pairings of its own has nothing to back up.
    public func backup(passphrase: [UInt8]) async throws(ManagementError) -> [UInt8] {
        throw .failed("this gateway keeps no pairings to back up")
    }
}

/// What a pair did: the pairing saved (docs/DESIGN.md "Identity and names").
public struct PairedServer: Sendable, Hashable {
    /// The accessory pairing id, `AA:BB:CC:DD:EE:FF`: the server part of its accessories' ids.
    public var id: String
    /// The pairing's name, as `hap2mqtt accessories` lists it.
    public var name: String
    /// Where it was reached.
    public var host: String
    /// Its HAP port.
    public var port: UInt16
    /// Whether this replaced an old pairing with the same accessory (the accessory had been reset).
    public var replaced: Bool
    /// The old pairing's name, when it replaced one that had a name.
    public var replacedName: String?

    public init(
        id: String, name: String, host: String, port: UInt16, replaced: Bool = false, replacedName: String? = nil
    ) {
        self.id = id
        self.name = name
        self.host = host
        self.port = port
        self.replaced = replaced
        self.replacedName = replacedName
    }
}

/// What an unpair did.
public struct UnpairResult: Sendable, Hashable {
    /// How the pairing went.
    public enum Outcome: Sendable, Hashable {
        /// The accessory removed the pairing, then it was deleted here.
        case removed
        /// The accessory no longer knew this controller (reset, or removed by another controller); the
        /// pairing was deleted here.
        case alreadyRemovedOnAccessory
        /// Forced: the accessory could not be told (`reason`), so it may still list this controller and
        /// must be reset before another controller can pair with it; the pairing was deleted here.
        case removedLocallyOnly(reason: String)
    }

    /// The accessory pairing id.
    public var id: String
    /// The pairing's name.
    public var name: String
    public var outcome: Outcome

    public init(id: String, name: String, outcome: Outcome) {
        self.id = id
        self.name = name
        self.outcome = outcome
    }
}
