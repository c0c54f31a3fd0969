public import Foundation
import JSON
import SystemSupport

/// A pair-setup under way, recorded in the state directory (`pair-setup-pending.json`, written
/// atomically with mode 0600) before the first message goes out and removed once its outcome is known.
///
/// Pair-setup has a window no controller can close: the accessory stores the new pairing when it accepts
/// M5, and the controller learns the accessory's identity only from M6 (HAP spec §5.6.5, §5.6.6;
/// docs/hap-notes.md §7.16). A controller killed in between leaves the accessory paired with nobody who
/// can reach it. The record left behind tells the next `pair` with that address why the accessory says
/// it is paired, so its error can say that this interrupted pairing is the cause and the accessory must
/// be reset.
public struct PendingPairSetup: Sendable, Hashable {
    /// The file in the state directory.
    public static let fileName = "pair-setup-pending.json"

    /// The accessory's host, as given to `pair`.
    public var host: String
    /// The accessory's HAP port.
    public var port: UInt16
    /// When the pair-setup started, in seconds since 1970 (UTC).
    public var started: Double

    public init(host: String, port: UInt16, started: Date = Date()) {
        self.host = host
        self.port = port
        self.started = started.timeIntervalSince1970.rounded()
    }

    /// Reads the file's form, `{"host":…,"port":…,"started":…}`.
    /// - Throws: `JSONFieldError` naming the first member that is missing or of the wrong type.
    init(json: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(json)
        host = try fields.string("host")
        port = try fields.integer("port")
        started = try fields.double("started")
    }

    /// The file's form.
    var json: JSONValue {
        ["host": .string(host), "port": JSONValue(Int(port)), "started": .double(started)]
    }

    /// `started` as `2026-12-01 23:45:10 UTC`, for messages.
    public var startedDescription: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: started))
    }
}

extension PairingStore {
    /// Records that a pair-setup with `pending`'s address begins.
    /// - Throws: `PairingStoreError.io` when the file cannot be written (then pairing must not start).
    public func beginPairSetup(_ pending: PendingPairSetup) throws(PairingStoreError) {
        try write(pending.json, to: PendingPairSetup.fileName)
    }

    /// The pair-setup a controller began and never finished (it was killed), if any; nil also for a file
    /// that cannot be read or decoded (it only ever sharpens an error message).
    public func interruptedPairSetup() -> PendingPairSetup? {
        guard let data = try? directory.read(PendingPairSetup.fileName) else { return nil }
        return try? decode(from: data, file: PendingPairSetup.fileName, as: PendingPairSetup.init(json:))
    }

    /// Forgets the record of the pair-setup under way: its outcome is known (saved, or refused).
    public func endPairSetup() {
        try? directory.remove(PendingPairSetup.fileName)
    }
}
