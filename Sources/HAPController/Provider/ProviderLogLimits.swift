/// What keeps a `HAPAccessoryProvider`'s log from repeating itself: problems of the accessory list logged
/// once while they stay, at most one line a minute about unreadable values and about announcements.
struct ProviderLogLimits: Sendable {
    /// The accessory list's problems already logged (`HAPModelProblem.description`).
    var reportedListProblems: Set<String> = []
    /// One line a minute about values their format cannot carry.
    var unreadableValues = LogLimiter()
    /// At most one "announced itself" line a minute.
    var announcements = LogLimiter()
}
