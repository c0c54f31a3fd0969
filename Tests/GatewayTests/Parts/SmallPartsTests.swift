import HomeModel
import Testing

@testable import Gateway

/// `HSValues`, `FollowUpWork` and `BirthAnswers` alone.
@Suite("Gateway parts: hs values, follow-up work, birth answers")
struct SmallPartsTests {
    static let id = AccessoryID(serverID: "00:00:00:00:00:01", aid: 2)
    static let hs = HSTopic(
        stateTopic: "b/lamp/lightbulb/hs", hue: .init(accessory: id, iid: 10), saturation: .init(accessory: id, iid: 11)
    )
    static let other = HSTopic(
        stateTopic: "b/strip/lightbulb/hs", hue: .init(accessory: id, iid: 20),
        saturation: .init(accessory: id, iid: 21))

    @Test("an hs payload goes out once per step, when hue and saturation are both known")
    func hsValues() {
        var values = HSValues()
        values.record("30", at: Self.hs.hue, of: Self.hs)
        #expect(values.takeChanged().isEmpty, "saturation not known yet")
        values.record("40", at: Self.hs.saturation, of: Self.hs)
        values.record("50", at: Self.other.hue, of: Self.other)
        values.record("60", at: Self.other.saturation, of: Self.other)
        values.record("45", at: Self.hs.saturation, of: Self.hs)
        let changed = values.takeChanged()
        #expect(changed.map(\.topic) == [Self.hs, Self.other])
        #expect(changed.map(\.payload) == ["30,45", "50,60"])
        #expect(values.takeChanged().isEmpty)
        values.record("31", at: Self.hs.hue, of: Self.hs)
        values.forget(Self.hs)
        #expect(values.takeChanged().isEmpty)
        values.record("32", at: Self.hs.hue, of: Self.hs)
        #expect(values.takeChanged().isEmpty, "forgotten: the saturation must come again")
    }

    @Test("a step with the colours of many lights lists each light once, in the order of its first change")
    func hsValuesOfManyLights() {
        let lights = (0..<20).map { n in
            HSTopic(
                stateTopic: "b/light_\(n)/lightbulb/hs", hue: .init(accessory: Self.id, iid: 100 + 2 * n),
                saturation: .init(accessory: Self.id, iid: 101 + 2 * n))
        }
        var values = HSValues()
        for round in 0..<2 {
            for light in lights.reversed() {
                values.record("\(round)", at: light.hue, of: light)
                values.record("\(round + 50)", at: light.saturation, of: light)
            }
        }
        let changed = values.takeChanged()
        #expect(changed.map(\.topic) == lights.reversed())
        #expect(changed.allSatisfy { $0.payload == "1,51" })
        #expect(values.takeChanged().isEmpty)
    }

    @Test("follow-up work gathers until its task takes it; one task at a time")
    func followUp() {
        var work = FollowUpWork()
        let other = AccessoryID(serverID: "00:00:00:00:00:01", aid: 3)
        let startTask = [
            work.add(renamed: [], listChanged: false),  // nothing to do
            work.add(renamed: [other], listChanged: false),
            work.add(renamed: [Self.id], listChanged: true),  // a task is scheduled already
        ]
        let taken = work.take()
        let again = work.add(renamed: [], listChanged: true)
        let second = work.take()
        #expect(startTask == [false, true, false])
        #expect(taken.renamed == [Self.id, other] && taken.listChanged)
        #expect(again, "after the task took the work, new work needs a new task")
        #expect(second.renamed.isEmpty && second.listChanged)
    }

    @Test("births while an answer waits are answered once; only online asks")
    func births() {
        var births = BirthAnswers()
        let asked = [
            births.received("offline"), births.received(" online\n"), births.received("online"), births.received(nil),
        ]
        births.answering()
        let again = births.received("online")
        #expect(asked == [false, true, false, false])
        #expect(again, "after the answer, the next birth is answered again")
        #expect(births.isPending)
    }
}
