import MQTT
import Testing

@testable import Gateway

/// `CommandLanes` alone: which server is busy, and the order its commands wait in.
@Suite("Gateway parts: command lanes")
struct CommandLanesTests {
    static func pending(_ topic: String) -> CommandLanes.Pending {
        CommandLanes.Pending(
            command: .get(state: topic), message: MQTTMessage(topic: topic + "/get", string: "", qos: .atLeastOnce))
    }

    @Test("a server is busy from open until its lane runs dry; its commands come back in the order they came")
    func order() {
        var lanes = CommandLanes()
        #expect(!lanes.isBusy("A"))
        lanes.open("A")
        #expect(lanes.isBusy("A") && !lanes.isBusy("B"))
        lanes.append(Self.pending("b/one"), to: "A")
        lanes.append(Self.pending("b/two"), to: "A")
        #expect(lanes.next(for: "A")?.message.topic == "b/one/get")
        #expect(lanes.isBusy("A"), "busy while the command taken runs")
        #expect(lanes.next(for: "A")?.message.topic == "b/two/get")
        #expect(lanes.next(for: "A") == nil)
        #expect(!lanes.isBusy("A"), "a lane with nothing waiting closes")
    }

    @Test("removeAll closes every lane")
    func removeAll() {
        var lanes = CommandLanes()
        lanes.open("A")
        lanes.append(Self.pending("b/one"), to: "B")
        lanes.removeAll()
        #expect(!lanes.isBusy("A") && !lanes.isBusy("B"))
    }
}
