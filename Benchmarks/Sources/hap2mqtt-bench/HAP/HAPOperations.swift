/// The operations scenario 4 compares, with the samples of one controller in µs. The names are the keys of
/// the aiohomekit script's JSON (`Benchmarks/hap/aiohomekit_bench.py`).
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
    }

    private(set) var samples: [Operation: [Double]] = [:]

    subscript(operation: Operation) -> [Double] {
        get { samples[operation] ?? [] }
        set { samples[operation] = newValue }
    }

    /// Appends every operation's samples of `other`.
    mutating func append(_ other: HAPOperations) {
        for operation in Operation.allCases { self[operation] += other[operation] }
    }

    /// Connections (pair-verify) and `/accessories` fetches per run: a tenth of the reads, as the script
    /// takes them.
    static func fewer(_ samples: Int) -> Int { max(1, samples / 10) }
}

/// What both controllers work on in the standard fixture (Tests/Fixtures/hap_fixture.py): the Light's
/// Brightness (aid 2, iid 10), read, written with 0 and 100 in turn, and changed through the fixture's
/// control channel to 1…50 in turn for the events (never the value before, so that each change is one).
enum HAPBenchTarget {
    static let aid = 2
    static let iid = 10
    static let accessory = "Light"
    static let characteristic = "Brightness"
    static let writeValues: [Int64] = [0, 100]

    static func eventValue(_ index: Int) -> Int64 { Int64(index % 50 + 1) }
}
