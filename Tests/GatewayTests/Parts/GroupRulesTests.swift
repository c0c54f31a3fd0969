import JSON
import Testing

@testable import Gateway

/// The group's state rule (`GroupState`), the group command's validation (`GroupCommand`) and the group
/// topics (`TopicScheme`), alone, with known answers.
@Suite("Scenes and groups: the aggregation rule and the command's checks")
struct GroupRulesTests {
    typealias Member = GroupState.Member

    @Test(
        "lights: on when any is on, brightness the mean of the lit ones (all when none is lit), unknown members left out",
        arguments: [
            (
                [Member(on: true, brightness: 40), Member(on: false, brightness: 100), Member()],
                #"{"state":"ON","brightness":40}"#
            ),
            ([Member(on: true, brightness: 40), Member(on: true, brightness: 81)], #"{"state":"ON","brightness":61}"#),
            (
                [Member(on: false, brightness: 20), Member(on: false, brightness: 30)],
                #"{"state":"OFF","brightness":25}"#
            ),
            ([Member(on: true), Member(on: false, brightness: 30)], #"{"state":"ON","brightness":30}"#),
            ([Member(on: false), Member(on: false)], #"{"state":"OFF"}"#),
            ([Member(), Member()], #"{"state":null}"#),
            ([], #"{"state":null}"#),
        ])
    func lights(_ members: [Member], _ expected: String) {
        #expect(JSONValue.object(GroupState.aggregate(.light, members)).description == expected)
    }

    @Test("switches and outlets: state only; covers: the mean position, open when any is open at all")
    func otherKinds() {
        #expect(
            JSONValue.object(GroupState.aggregate(.switch, [Member(on: false), Member(on: true, brightness: 5)]))
                .description
                == #"{"state":"ON"}"#)
        #expect(JSONValue.object(GroupState.aggregate(.outlet, [Member(on: false)])).description == #"{"state":"OFF"}"#)
        #expect(
            JSONValue.object(GroupState.aggregate(.cover, [Member(position: 0), Member(position: 1), Member()]))
                .description
                == #"{"state":"OPEN","position":1}"#)
        #expect(
            JSONValue.object(GroupState.aggregate(.cover, [Member(position: 0), Member(position: 0)])).description
                == #"{"state":"CLOSED","position":0}"#)
        #expect(
            JSONValue.object(GroupState.aggregate(.cover, [Member()])).description == #"{"state":null,"position":null}"#
        )
    }

    @Test(
        "a group's command: the payloads taken",
        arguments: [
            ("ON", GroupKind.light, GroupCommand(power: .on)),
            ("toggle", .switch, GroupCommand(power: .toggle)),
            (#"{"state":"OFF"}"#, .outlet, GroupCommand(power: .off)),
            (#"{"state":true,"brightness":49.6}"#, .light, GroupCommand(power: .on, brightness: 50)),
            (#"{"brightness":0}"#, .light, GroupCommand(brightness: 0)),
            (#"{"position":30}"#, .cover, GroupCommand(position: 30)),
            ("OPEN", .cover, GroupCommand(position: 100)),
            (#"{"state":"close"}"#, .cover, GroupCommand(position: 0)),
        ])
    func taken(_ payload: String, _ kind: GroupKind, _ expected: GroupCommand) throws {
        #expect(try GroupCommand.parse(Array(payload.utf8), kind: kind).get() == expected)
    }

    @Test(
        "a group's command: each refusal names every problem",
        arguments: [
            (
                #"{"brightness":101,"state":"dim"}"#, GroupKind.light,
                #""brightness" is a number from 0 to 100; "state" is "ON", "OFF" or "TOGGLE""#
            ),
            (#"{"brightness":50}"#, .switch, #"a switch group takes no "brightness""#),
            (
                #"{"position":-1,"tilt":3}"#, .cover,
                #""position" is a number from 0 to 100; a cover group takes no "tilt""#
            ),
            ("ON", .cover, #""state" of a cover group is "OPEN" or "CLOSE""#),
            ("{}", .light, "the payload asks for nothing"),
            (#"{"state":"ON""#, .light, "the payload is neither a JSON object nor ON, OFF or TOGGLE"),
            ("", .light, "the payload is neither a JSON object nor ON, OFF or TOGGLE"),
        ])
    func refused(_ payload: String, _ kind: GroupKind, _ expected: String) {
        guard case .failure(let error) = GroupCommand.parse(Array(payload.utf8), kind: kind) else {
            Issue.record("\(payload) was taken")
            return
        }
        #expect(error.description == expected)
    }

    @Test("the group topics: `groups/<group>/set` is a group's command, under any base, and `groups` is reserved")
    func topics() {
        for base in ["hap2mqtt", "häus"] {
            let scheme = TopicScheme(base: base)
            #expect(scheme.command(for: "\(base)/groups/lights/set") == .groupSet(group: "lights"))
            #expect(scheme.characterCommand(for: "\(base)/groups/lights/set") == .groupSet(group: "lights"))
            #expect(scheme.command(for: "\(base)/groups//set") == nil)
            #expect(scheme.command(for: "\(base)/groups/set") == .accessorySet(accessory: "groups"))
            #expect(scheme.commandFilters.contains("\(base)/groups/+/set"))
            #expect(scheme.group("lights") == "\(base)/groups/lights")
        }
        #expect(Slug.reserved.contains("groups"))
    }
}
