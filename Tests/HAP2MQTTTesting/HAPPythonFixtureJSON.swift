import Foundation
import HomeModel

/// The JSON lines the fixture prints and the answers of its control channel (see the header of
/// Tests/Fixtures/hap_fixture.py). Values come with their Python type, so `true` and `1`, `21.0` and `21`
/// stay apart.
enum FixtureJSON {
    enum Line {
        /// Ready, with its control port and when (CLOCK_MONOTONIC, ns) it was ready.
        case ready(controlPort: UInt16, nanoseconds: UInt64?)
        /// An accepted write; `request` numbers the HAP request it came in (the demo bridge's record only).
        case set(HAPPythonAccessory.SetterCall, request: Int?)
        case rejected(HAPPythonAccessory.RejectedWrite)
        case prepare(HAPPythonAccessory.PrepareRequest)
        case snapshot(HAPPythonAccessory.SnapshotRequest)
        case error(String, portInUse: Bool)
        case other
    }

    /// A control answer's fields.
    struct Answer: Sendable {
        var paired: Bool?
        var configVersion: Int?
        var pairingID: String?
        var accessories: [String: Int]?
        var value: CharacteristicValue?
        /// `set_value`'s CLOCK_MONOTONIC time stamp, in ns, taken just before the change.
        var changedNanoseconds: UInt64?
        /// `flood_status`: the changes made by the last flood, and whether it still runs.
        var events: Int?
        var running: Bool?
        /// `misbehave` and `misbehaviour`: reads refused, connections closed for idleness, the largest read
        /// answered.
        var misbehaviour: HAPPythonAccessory.Misbehaviour?

        func status() throws(HAPPythonAccessoryError) -> HAPPythonAccessory.Status {
            guard let paired, let configVersion, let pairingID, let accessories else {
                throw .control("the answer carries no status")
            }
            return HAPPythonAccessory.Status(
                paired: paired, configVersion: configVersion, pairingID: pairingID, accessories: accessories)
        }
    }

    static func line(_ bytes: [UInt8]) -> Line {
        guard let o = object(bytes), let event = o["event"] as? String else { return .other }
        let accessory = o["accessory"] as? String ?? ""
        let characteristic = o["characteristic"] as? String ?? ""
        switch event {
        case "ready":
            guard let port = (o["control_port"] as? NSNumber).flatMap({ UInt16(exactly: $0.intValue) }) else {
                return .other
            }
            return .ready(
                controlPort: port, nanoseconds: (o["ready_ns"] as? NSNumber).flatMap { UInt64($0.stringValue) })
        case "set":
            let call = HAPPythonAccessory.SetterCall(
                accessory: accessory, characteristic: characteristic, value: value(o["value"], type: o["type"]),
                timed: o["timed"] as? Bool ?? false)
            return .set(call, request: (o["request"] as? NSNumber)?.intValue)
        case "rejected":
            let status = HAPStatus(rawValue: (o["status"] as? NSNumber)?.intValue ?? 0)
            return .rejected(
                .init(
                    accessory: accessory, characteristic: characteristic, value: value(o["value"], type: o["type"]),
                    status: status))
        case "prepare":
            let ttl = (o["ttl"] as? NSNumber)?.intValue ?? 0
            let pid = (o["pid"] as? NSNumber).flatMap { UInt64($0.stringValue) } ?? 0
            return .prepare(.init(ttl: ttl, pid: pid))
        case "snapshot":
            func int(_ key: String) -> Int { (o[key] as? NSNumber)?.intValue ?? 0 }
            return .snapshot(
                .init(
                    accessory: accessory, width: int("width"), height: int("height"), bytes: int("bytes"),
                    path: o["path"] as? String ?? ""))
        case "error":
            return .error(o["error"] as? String ?? "unknown error", portInUse: o["reason"] as? String == "port_in_use")
        default:
            return .other
        }
    }

    /// Sends one command over the control channel on 127.0.0.1:`port` (the fixture's or the demo bridge's,
    /// scripts/lib/hap_loopback.py) and reads its answer.
    /// - Throws: `.notRunning` when nothing answers, `.control` when the command is refused.
    static func send(_ command: [String: Any], to port: UInt16) async throws(HAPPythonAccessoryError) -> Answer {
        let line: [UInt8]
        do {
            line = Array(try JSONSerialization.data(withJSONObject: command)) + [0x0A]
        } catch {
            throw .control("cannot encode \(command): \(error)")
        }
        guard let fd = await LoopbackSocket.connect(port: port) else { throw .notRunning }
        defer { LoopbackSocket.close(fd) }
        guard await LoopbackSocket.write(fd, line), let text = await LoopbackSocket.readLine(fd) else {
            throw .notRunning
        }
        return try answer(text)
    }

    static func answer(_ text: String) throws(HAPPythonAccessoryError) -> Answer {
        guard let o = object(Array(text.utf8)) else { throw .control("unreadable answer: \(text)") }
        guard o["ok"] as? Bool == true else { throw .control(o["error"] as? String ?? text) }
        var answer = Answer()
        answer.paired = o["paired"] as? Bool
        answer.configVersion = (o["config_version"] as? NSNumber)?.intValue
        answer.pairingID = o["pairing_id"] as? String
        answer.accessories = (o["accessories"] as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.intValue }
        answer.value = value(o["value"], type: o["type"])
        answer.changedNanoseconds = (o["changed_ns"] as? NSNumber).flatMap { UInt64($0.stringValue) }
        answer.events = (o["events"] as? NSNumber)?.intValue
        answer.running = o["running"] as? Bool
        if let refused = (o["refused_reads"] as? NSNumber)?.intValue {
            answer.misbehaviour = HAPPythonAccessory.Misbehaviour(
                refusedReads: refused, idleCloses: (o["idle_closes"] as? NSNumber)?.intValue ?? 0,
                largestRead: (o["largest_read"] as? NSNumber)?.intValue ?? 0)
        }
        return answer
    }

    /// The JSON object for a command's value.
    static func object(for value: CharacteristicValue) -> Any {
        switch value {
        case .bool(let b): return b
        case .int(let i): return i
        case .uint(let u): return u
        case .float(let f): return f
        case .string(let s): return s
        case .data(let d): return Base64.encode(d)
        case .json(let text):
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) ?? NSNull()
        }
    }

    static func value(_ raw: Any?, type: Any?) -> CharacteristicValue? {
        guard let raw, !(raw is NSNull) else { return nil }
        switch type as? String {
        case "bool": return (raw as? Bool).map(CharacteristicValue.bool)
        case "int":
            guard let n = raw as? NSNumber else { return nil }
            if let i = Int64(n.stringValue) { return .int(i) }
            return UInt64(n.stringValue).map(CharacteristicValue.uint) ?? .int(n.int64Value)
        case "float": return (raw as? NSNumber).map { .float($0.doubleValue) }
        case "str": return (raw as? String).map(CharacteristicValue.string)
        default:
            guard let data = try? JSONSerialization.data(withJSONObject: raw, options: .fragmentsAllowed) else {
                return nil
            }
            return .json(String(decoding: data, as: UTF8.self))
        }
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}
