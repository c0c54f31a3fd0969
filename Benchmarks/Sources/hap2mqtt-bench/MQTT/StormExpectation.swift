import Synchronization

/// One characteristic the fixture's `storm` changes: the bridge (its index in the fleet), the light's
/// aid, and which of the four.
struct StormKey: Hashable, Sendable {
    var bridge: Int
    var aid: Int
    var characteristic: StormCharacteristic
}

/// The four characteristics of a colour light the storm changes, in the fixture's order, and the value
/// round `k` gives each (`storm_value` in Tests/Fixtures/hap_fixture.py).
enum StormCharacteristic: Int, CaseIterable, Sendable {
    case on, brightness, hue, saturation

    /// HAP-python's name, as the fixture's `storm` answer keys the iids.
    var fixtureName: String { ["On", "Brightness", "Hue", "Saturation"][rawValue] }
    /// hap2mqtt's characteristic slug.
    var slug: String { ["on", "brightness", "hue", "saturation"][rawValue] }

    /// The value of round `k` (from 1), a bool as 1 or 0.
    func value(round k: Int) -> Double {
        switch self {
        case .on: k % 2 == 1 ? 1 : 0
        case .hue: Double(k % 361)
        case .brightness, .saturation: Double(k % 101)
        }
    }
}

/// A state message of the storm as the subscriber saw it: which characteristic (an index into the
/// scenario's list of keys), the value, and when it arrived (CLOCK_MONOTONIC, ns).
struct StormArrival: Sendable {
    var key: Int
    var value: Double
    var time: UInt64
}

/// The arrivals of one storm, kept outside the expectation so that they survive its time-out (a side that
/// loses events never fulfils it).
final class StormRecord: Sendable {
    private let arrivals = Mutex<[StormArrival]>([])

    func append(_ arrival: StormArrival) { arrivals.withLock { $0.append(arrival) } }
    var all: [StormArrival] { arrivals.withLock { $0 } }
}

/// Fulfilled when `count` state messages of the storm's characteristics have arrived (`topics` maps each
/// state topic to its key's index); every one is recorded in `record`. Other topics are ignored.
struct StormExpectation: Expectation {
    let topics: [String: Int]
    let record: StormRecord
    let count: Int
    private(set) var seen = 0

    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool {
        guard let key = topics[topic] else { return seen >= count }
        let text = String(decoding: payload, as: UTF8.self)
        let value = text == "true" ? 1 : text == "false" ? 0 : Double(text) ?? .nan
        record.append(StormArrival(key: key, value: value, time: time))
        seen += 1
        return seen >= count
    }

    var progress: String { "\(seen) of \(count) storm messages" }
}

/// What one side made of a storm: each delivered change matched to the round that made it.
struct StormOutcome {
    /// From each change (the fixture's time stamp of its slice) to its arrival at the subscriber, in ms.
    var latencies: [Double] = []
    /// Changes delivered, each once.
    var delivered = 0
    /// Messages that match no change (a value no later round gave).
    var unmatched = 0

    /// Matches `arrivals` to the rounds of the storm: per characteristic in order of arrival, each message
    /// to the first round not matched yet whose value it carries. `stamps[bridge][round * slices + slice]`
    /// is when the fixture changed that slice; a light is in slice `aid % slices`.
    init(arrivals: [StormArrival], keys: [StormKey], stamps: [[Int: UInt64]], slices: Int, rounds: Int) {
        var next = [Int](repeating: 1, count: keys.count)
        for arrival in arrivals {
            let key = keys[arrival.key]
            var k = next[arrival.key]
            while k <= rounds, key.characteristic.value(round: k) != arrival.value { k += 1 }
            guard k <= rounds, let stamp = stamps[key.bridge][k * slices + key.aid % slices], stamp <= arrival.time
            else {
                unmatched += 1
                continue
            }
            next[arrival.key] = k + 1
            delivered += 1
            latencies.append(Double(arrival.time - stamp) / 1e6)
        }
    }
}
