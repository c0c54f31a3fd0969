internal import Foundation
import HomeModel
import HomeStore
import MQTT

extension Gateway {
    /// `<service>/hs/set` with `h,s` (Home Assistant sends decimals such as `30.117,71.2`): each number is
    /// checked by the store (which rounds it to its characteristic's step), and both are written in one HAP request.
    /// The result goes to `…/hs/set/result`; the `hs` topic follows the confirmed values through the
    /// store's change stream.
    func handleHSSet(_ colour: HSTopic, _ message: MQTTMessage) async {
        let request = Responder.Request(answerTopic: colour.commandTopic + "/result", properties: message.properties)
        let parts = (message.payloadString ?? "").split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            refuseHS(message, "hs: send hue and saturation as 'h,s', e.g. 240,100", request)
            return
        }
        // Read as each characteristic reads a /set, so that a number it cannot take (1e400, text) is
        // refused with the reason.
        let (h, s) = (parts[0], parts[1])
        guard await store.characteristic(colour.hue) != nil, await store.characteristic(colour.saturation) != nil else {
            refuseHS(message, GatewayError.unknownTopic(colour.stateTopic).description, request)
            return
        }
        let checked = await store.check([
            WriteCommand(colour.hue, .text(h), name: "hue"),
            WriteCommand(colour.saturation, .text(s), name: "saturation"),
        ])
        for address in [colour.hue, colour.saturation] {
            guard case .invalidValue(let error)? = checked.failures[address] else { continue }
            refuseHS(message, "\(error)", request)
            return
        }
        let outcome = await store.enqueue(checked) { [weak self] outcome in
            self?.assumeIsolated { $0.finishHSSet(colour, outcome, request) }
        }
        if let outcome { finishHSSet(colour, outcome, request) }
    }

    /// Refuses an `hs/set` before anything is written: logged like every refused command, and answered.
    private func refuseHS(_ message: MQTTMessage, _ why: String, _ request: Responder.Request) {
        logRefusal(message.topic, why)
        respond(.failure(why), to: request)
    }

    /// Answers an `hs/set`: `ok` with the confirmed `h,s`, or the first failure.
    func finishHSSet(
        _ colour: HSTopic, _ outcome: [CharacteristicAddress: HomeStore.WriteResult], _ request: Responder.Request
    ) {
        let failure = [colour.hue, colour.saturation].compactMap { address -> HomeStoreError? in
            if case .failure(let error)? = outcome[address] { return error }
            return outcome[address] == nil ? .failed("no answer") : nil
        }.first
        if let failure {
            logger.warning(
                "hs write to \(colour.stateTopic) failed: \(failure)", ["accessory": colour.hue.accessory.description])
            respond(.failure(failure), to: request)
        } else if case .success(let hue)? = outcome[colour.hue],
            case .success(let saturation)? = outcome[colour.saturation]
        {
            respond(.success(.string("\(hue),\(saturation)")), to: request)
        }
        flush()
    }
}
