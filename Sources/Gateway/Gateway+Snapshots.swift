import HomeModel
import HomeStore
import MQTT

extension Gateway {
    /// The size of the snapshots asked for, in pixels; the camera sends the size it has nearest to it.
    static let snapshotSize = (width: 640, height: 480)

    /// Takes a snapshot of every reachable camera now and then every `snapshotInterval` (none when it is
    /// zero), one camera after the other, until the gateway stops.
    func takeSnapshotsPeriodically() async {
        let interval = configuration.snapshotInterval
        guard interval > .zero else { return }
        while !isStopped, !Task.isCancelled {
            let cameras = index.layouts.filter { $0.value.snapshotTopic != nil && published[$0.key]?.reachable == true }
                .map(\.key).sorted()
            for id in cameras where !isStopped {
                await takeSnapshot(id)
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// `<base>/<accessory>/<service>/snapshot/get`: a snapshot now. The answer goes only to an MQTT 5
    /// response topic, as for a characteristic's `/get`: `{"status":"ok","value":<bytes>}` or the error.
    func handleSnapshotGet(_ id: AccessoryID, _ message: MQTTMessage) async {
        let result = await takeSnapshot(id)
        let request = Responder.Request(answerTopic: nil, properties: message.properties)
        respond(result.map { .success(.int(Int64($0))) } ?? .failure("no snapshot"), to: request)
    }

    /// Asks the store for a JPEG of the camera `id` and publishes it, retained, on its snapshot topic.
    /// Returns its size in bytes, or nil when there is none (the failure is logged).
    @discardableResult
    func takeSnapshot(_ id: AccessoryID) async -> Int? {
        guard let topic = index.layouts[id]?.snapshotTopic else { return nil }
        let image: [UInt8]
        do {
            image = try await store.snapshot(id, width: Self.snapshotSize.width, height: Self.snapshotSize.height)
        } catch {
            logger.warning(
                "no snapshot from \(published[id]?.name ?? id.description): \(error)", ["accessory": id.description])
            return nil
        }
        // The accessory may have gone or moved to other topics while the image came.
        guard !isStopped, index.layouts[id]?.snapshotTopic == topic else { return nil }
        retain(topic, payload: image, qos: configuration.stateQoS, for: id)
        flush()
        return image.count
    }

    /// The camera whose snapshot topic is `topic`.
    func camera(snapshotTopic topic: String) -> AccessoryID? {
        index.layouts.first { $0.value.snapshotTopic == topic }?.key
    }
}
