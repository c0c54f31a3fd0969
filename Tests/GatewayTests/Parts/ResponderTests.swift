import HomeModel
import HomeStore
import JSON
import MQTT
import Testing

@testable import Gateway

/// `Responder` alone: every answer's payload and where it goes.
@Suite("Gateway parts: the responder")
struct ResponderTests {
    static let asked = MQTTProperties(
        responseTopic: "replies/me", correlationData: Array("req-1".utf8), contentType: "text/plain")

    @Test("an answer goes to its result topic and, when asked, to the response topic with the correlation data alone")
    func destinations() {
        let plain = Responder.answer(
            .success(.int(40)), to: .init(answerTopic: "b/l/set/result", properties: MQTTProperties()))
        #expect(
            plain == [MQTTMessage(topic: "b/l/set/result", string: #"{"status":"ok","value":40}"#, qos: .atLeastOnce)])
        let both = Responder.answer(
            .success(.bool(true)), to: .init(answerTopic: "b/l/set/result", properties: Self.asked))
        #expect(both.map(\.topic) == ["b/l/set/result", "replies/me"])
        #expect(
            both.allSatisfy {
                !$0.retain && $0.qos == .atLeastOnce && $0.payloadString == #"{"status":"ok","value":true}"#
            })
        #expect(both[1].properties == MQTTProperties(correlationData: Array("req-1".utf8)))
        #expect(both[0].properties.isEmpty)
        let getOnly = Responder.answer(.success(.float(21.5)), to: .init(answerTopic: nil, properties: Self.asked))
        #expect(getOnly.map(\.topic) == ["replies/me"])
        #expect(Responder.answer(.success(nil), to: .init(answerTopic: nil, properties: MQTTProperties())).isEmpty)
    }

    @Test("a refusal names the error and, when there is one, the HAP status")
    func errors() {
        let request = Responder.Request(answerTopic: "r", properties: MQTTProperties())
        #expect(
            Responder.answer(.failure(.status(.invalidValueInRequest)), to: request).first?.payloadString
                == #"{"status":"error","error":"the accessory refused the write: HAP status -70410 (invalid value in write request)","hap_status":-70410}"#
        )
        #expect(
            Responder.answer(.failure("brightness: \"x\" is wrong"), to: request).first?.payloadString
                == #"{"status":"error","error":"brightness: \"x\" is wrong"}"#)
    }

    @Test("a multi-write's answer gives each characteristic's outcome by service, and names every failure")
    func multiWrite() {
        let request = Responder.Request(answerTopic: "b/lamp/set/result", properties: MQTTProperties())
        let ok = Responder.answer(
            [
                .init(service: "lightbulb", characteristic: "on", result: .success(.bool(true))),
                .init(service: "fan", characteristic: "active", result: .success(.int(1))),
                .init(service: "lightbulb", characteristic: "brightness", result: .success(.int(70))),
            ], to: request)
        #expect(
            ok.first?.payloadString
                == #"{"status":"ok","results":{"fan":{"active":{"status":"ok","value":1}},"lightbulb":{"on":{"status":"ok","value":true},"brightness":{"status":"ok","value":70}}}}"#
        )
        let failed = Responder.answer(
            [
                .init(service: "lightbulb", characteristic: "on", result: .failure(.timedOut(seconds: 10))),
                .init(service: "lightbulb", characteristic: "hue", result: .success(.float(30))),
            ], to: request)
        #expect(
            failed.first?.payloadString
                == #"{"status":"error","error":"lightbulb/on: the accessory did not answer within 10 s","results":{"lightbulb":{"on":{"status":"error","error":"the accessory did not answer within 10 s","hap_status":-70408},"hue":{"status":"ok","value":30}}}}"#
        )
    }

    @Test("a bridge response carries data or the error, and echoes the transaction as it was sent")
    func bridge() {
        let request = Responder.Request(answerTopic: "b/bridge/response/rename", properties: Self.asked)
        let ok = Responder.answer(
            .success(.object(["accessory": "lamp"])), transaction: .object(["n": .array([1, 2])]), to: request)
        #expect(ok.map(\.topic) == ["b/bridge/response/rename", "replies/me"])
        #expect(ok.first?.payloadString == #"{"status":"ok","data":{"accessory":"lamp"},"transaction":{"n":[1,2]}}"#)
        let refused = Responder.answer(.failure(.invalidPayload("no accessory 'x'")), transaction: nil, to: request)
        #expect(refused.first?.payloadString == #"{"status":"error","data":{},"error":"no accessory 'x'"}"#)
    }
}
