/// One block of samples of one operation by one controller: the times in µs, and the controller process's
/// own CPU time (user + system, getrusage) per operation over the block in µs; for events less the
/// fixture control channel's share (as many pings, measured after them), which each event needs to be
/// triggered but which is no part of the controller.
struct HAPBlock: Sendable {
    var samples: [Double]
    var cpu: Double
}

/// The operations scenario 4 compares, with the samples of one controller in µs and its CPU time per
/// operation, one figure per block. The names are the keys of the aiohomekit script's JSON
/// (`Benchmarks/hap/aiohomekit_bench.py`).
struct HAPOperations: Sendable {
    enum Operation: String, CaseIterable, Sendable {
        case pairVerify = "pair_verify"
        case accessories
        case read
        case write
        case event

        /// The metric's name in the table.
        var title: String {
            switch self {
            case .pairVerify: "pair-verify (new connection)"
            case .accessories: "GET /accessories + parse"
            case .read: "single read"
            case .write: "single write"
            case .event: "event latency"
            }
        }

        /// The operation in the name of its CPU metric.
        var cpuTitle: String {
            switch self {
            case .pairVerify: "pair-verify"
            case .accessories: "GET /accessories + parse"
            case .read: "read"
            case .write: "write"
            case .event: "event"
            }
        }
    }

    private var samples: [Operation: [Double]] = [:]
    private var cpuPerBlock: [Operation: [Double]] = [:]

    /// The times of `operation`, µs.
    subscript(operation: Operation) -> [Double] { samples[operation] ?? [] }

    /// The CPU time per `operation` of each block, µs.
    func cpu(_ operation: Operation) -> [Double] { cpuPerBlock[operation] ?? [] }

    mutating func record(_ operation: Operation, _ block: HAPBlock) {
        samples[operation, default: []] += block.samples
        cpuPerBlock[operation, default: []].append(block.cpu)
    }

    /// Samples of `operation` per run: `samples` reads, writes and events, a tenth as many connections
    /// (pair-verify) and `/accessories` fetches.
    static func count(_ operation: Operation, samples: Int) -> Int {
        switch operation {
        case .pairVerify, .accessories: max(1, samples / 10)
        case .read, .write, .event: samples
        }
    }

    /// Samples per block: the two sides take turns a block at a time.
    static func block(_ operation: Operation, samples: Int) -> Int { max(1, count(operation, samples: samples) / 20) }
}

/// What both controllers work on in the standard fixture (Tests/Fixtures/hap_fixture.py): the Light's
/// Brightness (aid 2, iid 10), read, written with 0 and 100 in turn, and changed through the fixture's
/// control channel to 1…50 in turn for the events, counted over both sides (never the value before, so
/// that each change is one).
enum HAPBenchTarget {
    static let aid = 2
    static let iid = 10
    static let accessory = "Light"
    static let characteristic = "Brightness"
    static let writeValues: [Int64] = [0, 100]

    static func writeValue(_ index: Int) -> Int64 { writeValues[index % writeValues.count] }
    static func eventValue(_ index: Int) -> Int64 { Int64(index % 50 + 1) }
}
