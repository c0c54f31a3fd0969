import HomeModel

/// What the gateway has published for one accessory besides its topics (those are in the `TopicIndex`):
/// the name it shows, its availability, its JSON message and every retained topic it ever had.
struct PublishedAccessory {
    /// The displayed name; a change of it is announced as `accessory_renamed`.
    var name: String
    var reachable: Bool
    /// The accessory JSON message, with each readable characteristic's last published value.
    var json: AccessoryJSON
    /// Every retained topic published for the accessory, so that all of them can be cleared when it goes.
    var topics: Set<String> = []
}
