import HomeModel

/// What the gateway has published for one accessory besides its topics (those are in the `TopicIndex`):
/// the name it shows, its availability, its JSON message, every retained topic it ever had, and what
/// publishing each readable characteristic's value needs.
struct PublishedAccessory {
    /// What publishing one readable characteristic's value needs, taken from the layout once: looking it
    /// up in the topic index for every change copied the index and the characteristic's topics
    /// (hap2mqtt-bench fanout, Benchmarks/README.md).
    struct StateTopic {
        /// `<base>/<accessory>/<service>/<characteristic>`.
        let topic: String
        /// Published without retain, on events only (`CharacteristicTopic.isStateless`).
        let isStateless: Bool
        /// The accessory's Name: a change renames the accessory.
        let isAccessoryName: Bool
        /// The hue or the saturation of an `hs` topic.
        let isColourPart: Bool
    }

    /// The displayed name; a change of it is announced as `accessory_renamed`.
    var name: String
    var reachable: Bool
    /// The accessory JSON message, with each readable characteristic's last published value.
    var json: AccessoryJSON
    /// Every retained topic published for the accessory, so that all of them can be cleared when it goes.
    var topics: Set<String> = []
    /// The readable characteristics by iid.
    private(set) var stateTopics: [Int: StateTopic] = [:]
    /// The iids whose state topic is in `topics` already, so that a change adds it only once.
    private var publishedIIDs: Set<Int> = []
    /// A value changed since the accessory JSON was last published.
    private(set) var isJSONStale = false

    init(name: String, reachable: Bool, layout: AccessoryLayout, topics scheme: TopicScheme) {
        self.name = name
        self.reachable = reachable
        json = AccessoryJSON(layout: layout, topics: scheme)
        let colourParts = Set(layout.hsTopics.flatMap { [$0.hue.iid, $0.saturation.iid] })
        for c in layout.characteristics where c.isReadable {
            stateTopics[c.address.iid] = StateTopic(
                topic: c.stateTopic, isStateless: c.isStateless, isAccessoryName: c.isAccessoryName,
                isColourPart: colourParts.contains(c.address.iid))
        }
    }

    /// The state topic of characteristic `iid`, nil unless it is readable; unless it is stateless, the
    /// accessory JSON is then stale (its new value is recorded with `recordJSON(iid:_:)`), and
    /// `madeStale` says whether it was fresh before, so that the caller lists the accessory once for
    /// republishing. Mutating, so that it runs on the entry in place: a read of an entry through the
    /// dictionary copies all of it (hap2mqtt-bench fanout).
    mutating func recordValue(iid: Int) -> (state: StateTopic, madeStale: Bool)? {
        guard let state = stateTopics[iid] else { return nil }
        guard !state.isStateless else { return (state, false) }
        if publishedIIDs.insert(iid).inserted { topics.insert(state.topic) }
        defer { isJSONStale = true }
        return (state, !isJSONStale)
    }

    /// Records the JSON text (`json`, called only then) of the new value of characteristic `iid` for the
    /// accessory JSON, when it is readable and not stateless.
    mutating func recordJSON(iid: Int, _ json: () -> String) {
        guard let state = stateTopics[iid], !state.isStateless else { return }
        self.json.set(json(), iid: iid)
    }

    /// Whether the accessory JSON is stale, and its topic.
    mutating func jsonState() -> (isStale: Bool, topic: String) { (isJSONStale, json.topic) }

    /// Marks the accessory JSON stale (the accessory changed); returns whether it was fresh before.
    mutating func markJSONStale() -> Bool {
        defer { isJSONStale = true }
        return !isJSONStale
    }

    /// The accessory JSON with the values recorded so far, which is no longer stale.
    mutating func renderJSON() -> [UInt8] {
        isJSONStale = false
        return json.render()
    }
}
