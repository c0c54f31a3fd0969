import Foundation
import Gateway
import SystemSupport
import Testing

/// The claim on the base topic as the retained `bridge/state` carries it, and the decision a start makes
/// on it (docs/DESIGN.md "Owning the base topic"): known-answer payloads.
@Suite("The claim on the base topic")
struct BaseTopicClaimReadingTests {
    static let topic = "hap2mqtt/bridge/state"
    static let me = BaseTopicClaim(instance: String(repeating: "a", count: 32), clientID: "hap2mqtt", host: "pi")
    static let other = BaseTopicClaim(instance: String(repeating: "b", count: 32), clientID: "second", host: "nas")

    static func read(_ text: String) throws(OwnershipError) -> FoundClaim {
        try FoundClaim(payload: Array(text.utf8), topic: topic)
    }

    @Test("the payloads a gateway writes, with its claim held or released, read back as they were written")
    func roundTrip() throws {
        let held = Self.me.statePayload(state: "online", held: true)
        #expect(
            held
                == #"{"state":"online","claim":"held","instance":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","client_id":"hap2mqtt","host":"pi"}"#
        )
        #expect(try Self.read(held) == .claim(Self.me, held: true))
        #expect(try Self.read(Self.me.statePayload(state: "offline", held: false)) == .claim(Self.me, held: false))
        #expect(
            Gateway.lastWill(baseTopic: "hap2mqtt", claim: Self.me).payloadString
                == Self.me.statePayload(state: "offline", held: false))
        #expect(Gateway.lastWill(baseTopic: "hap2mqtt").payloadString == #"{"state":"offline"}"#)
    }

    @Test("no retained message, or one an earlier version wrote without a claim, leaves the base topic free")
    func unclaimed() throws {
        #expect(try FoundClaim(payload: [], topic: Self.topic) == .none)
        #expect(try Self.read(#"{"state":"online"}"#) == .unclaimed(state: "online"))
        #expect(try ClaimOutcome.decide(.unclaimed(state: "online"), own: Self.me, base: "hap2mqtt") == .free)
        #expect(try ClaimOutcome.decide(.none, own: Self.me, base: "hap2mqtt") == .free)
    }

    @Test("junk is refused with what is wrong in one line, never read as no claim")
    func junk() {
        let cases: [(String, String)] = [
            ("not json", "it is not JSON"), ("[1]", "not a JSON object"), (#"{"claim":"held"}"#, #"no "state""#),
            (#"{"state":"online","claim":"mine","instance":"x","client_id":"c","host":"h"}"#, #""claim""#),
            (
                #"{"state":"online","claim":"held","instance":7,"client_id":"c","host":"h"}"#,
                #""instance" has the wrong type"#
            ),
            (#"{"state":"online","claim":"held","instance":"x","host":"h"}"#, #"no "client_id""#),
            (#"{"state":"online","claim":"held","instance":"","client_id":"c","host":"h"}"#, #""instance""#),
        ]
        for (payload, reason) in cases {
            #expect {
                _ = try Self.read(payload)
            } throws: { error in
                let text = "\(error)"
                return text.contains("the retained \(Self.topic) is not a claim a gateway writes")
                    && text.contains(reason)
                    && !text.contains("\n")
            }
        }
    }

    @Test(
        "another instance's held claim refuses, naming it; released is taken over; this instance's own is taken again")
    func decisions() throws {
        #expect {
            _ = try ClaimOutcome.decide(.claim(Self.other, held: true), own: Self.me, base: "hap2mqtt")
        } throws: { error in
            "\(error)"
                == "the base topic hap2mqtt/ is claimed by another gateway that is running: client id second on host nas (instance bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb); stop that one, or give this one another mqtt.base_topic"
        }
        #expect(
            try ClaimOutcome.decide(.claim(Self.other, held: false), own: Self.me, base: "hap2mqtt")
                == .takenOver(from: Self.other))
        #expect(
            try ClaimOutcome.decide(.claim(Self.me, held: true), own: Self.me, base: "hap2mqtt") == .own(wasHeld: true))
        // The same instance on another host or with another client id (a restored state directory).
        let moved = BaseTopicClaim(instance: Self.me.instance, clientID: "new", host: "other")
        #expect(
            try ClaimOutcome.decide(.claim(moved, held: true), own: Self.me, base: "hap2mqtt") == .own(wasHeld: true))
    }

    @Test("the instance id is made once, kept, and a damaged file is an error that leaves it as it is")
    func instanceFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("instance-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = StateDirectory(path: path)
        let first = try InstanceIdentity.load(from: directory)
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit) && first == first.lowercased())
        #expect(try InstanceIdentity.load(from: directory) == first)
        try directory.write(Data("{\"instance\":\"short\"}".utf8), to: InstanceIdentity.fileName)
        #expect(throws: OwnershipError.self) { try InstanceIdentity.load(from: directory) }
        #expect(try directory.read(InstanceIdentity.fileName) == Data("{\"instance\":\"short\"}".utf8))
    }
}
