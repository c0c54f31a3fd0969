internal import Foundation
import HomeModel
import HomeStore
import MQTT

extension Gateway {
    /// Publishes `<service>/hs` (`h,s`) when both values of the pair are known; called after either changed.
    func publishHS(_ hs: HSTopic) {
        guard let hue = lastPayload(hs.hue), let saturation = lastPayload(hs.saturation) else { return }
        publishRetained(hs.stateTopic, "\(hue),\(saturation)", qos: configuration.stateQoS, for: hs.hue.accessory)
    }

    /// `<service>/hs/set` with `h,s` (Home Assistant sends decimals such as `30.117,71.2`): each number is
    /// rounded to its characteristic's step, checked by the store, and both are written in one HAP request.
    /// The result goes to `…/hs/set/result`; the `hs` topic follows the confirmed values through the
    /// store's change stream.
    func handleHSSet(_ hs: HSTopic, _ message: MQTTMessage) async {
        let resultTopic = hs.commandTopic + "/result"
        let parts = (message.payloadString ?? "").split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let h = parts[0], let s = parts[1], h.isFinite, s.isFinite else {
            respond(.failure("hs: send hue and saturation as 'h,s', e.g. 240,100"), on: resultTopic, to: message)
            return
        }
        guard let hue = await store.characteristic(hs.hue), let saturation = await store.characteristic(hs.saturation) else {
            respond(.failure(GatewayError.unknownTopic(hs.stateTopic).description), on: resultTopic, to: message)
            return
        }
        let checked = await store.check([
            WriteCommand(hs.hue, .value(.float(hue.roundedToStep(h))), name: "hue"),
            WriteCommand(hs.saturation, .value(.float(saturation.roundedToStep(s))), name: "saturation"),
        ])
        for address in [hs.hue, hs.saturation] {
            guard case .invalidValue(let error)? = checked.failures[address] else { continue }
            respond(.failure("\(error)"), on: resultTopic, to: message)
            return
        }
        let properties = message.properties
        let outcome = await store.enqueue(checked) { [weak self] outcome in
            self?.assumeIsolated { $0.finishHSSet(hs, outcome, resultTopic: resultTopic, properties: properties) }
        }
        if let outcome { finishHSSet(hs, outcome, resultTopic: resultTopic, properties: properties) }
    }

    func finishHSSet(
        _ hs: HSTopic, _ outcome: [CharacteristicAddress: Result<CharacteristicValue, HomeStoreError>], resultTopic: String,
        properties: MQTTProperties
    ) {
        let failure = [hs.hue, hs.saturation].compactMap { address -> HomeStoreError? in
            if case .failure(let error)? = outcome[address] { return error }
            return outcome[address] == nil ? .failed("no answer") : nil
        }.first
        if let failure {
            logger.warning("hs write to \(hs.stateTopic) failed: \(failure)", ["accessory": hs.hue.accessory.description])
            respond(.failure(failure), on: resultTopic, properties: properties)
        } else if case .success(let hue)? = outcome[hs.hue], case .success(let saturation)? = outcome[hs.saturation] {
            respond(.success(.string("\(hue),\(saturation)")), on: resultTopic, properties: properties)
        }
        flush()
    }
}

extension Characteristic {
    /// `value` moved to the nearest whole number of `minStep`s from `minValue` (or 0); unchanged without a step.
    func roundedToStep(_ value: Double) -> Double {
        guard let step = minStep, step > 0 else { return value }
        let origin = minValue ?? 0
        return origin + ((value - origin) / step).rounded() * step
    }
}
