public import HomeStore

extension HAPAccessoryProvider {
    /// Fetches `/accessories` again on the open connection, reads every value and reports a fresh
    /// `.synced` that the store reconciles (`bridge/request/refresh`; the same as after `c#` went up).
    /// - Throws: `.unreachable` without a session, else the request's error.
    public func refresh() async throws(AccessoryError) {
        guard let client else { throw .unreachable(disconnectReason) }
        let counts: (accessories: Int, added: Int, removed: Int)?
        do {
            counts = try await resync(on: client)
        } catch {
            throw Self.accessoryError(error)
        }
        guard let counts else { throw .unreachable(disconnectReason) }
        logger.info(
            "refreshed \(displayName): \(counts.accessories) accessories, \(counts.added) added, \(counts.removed) removed"
        )
    }
}
