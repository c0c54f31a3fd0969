public import HomeModel

extension Gateway {
    /// The pairing with accessory server `serverID` (its accessory pairing id) was removed: the names of
    /// its accessories are freed once their topics are cleared, so that the same device, reset to factory
    /// settings and paired again under a new id, gets its old topics instead of `…_2` ones.
    public func forgetPairing(serverID: String) async {
        index.forget(server: serverID)
        await saveSlugs()  // off the store's executor: the write ends with fsync
    }

    /// The slug the slug map holds for accessory `id`, published or not; nil when it has none.
    public func registeredSlug(of id: AccessoryID) -> String? { index.registeredSlug(of: id) }
}
