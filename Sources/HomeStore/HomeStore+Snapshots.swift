public import HomeModel
import SystemSupport

/// Camera snapshots, routed to the owning provider.
extension HomeStore {
    /// The least time a snapshot is given: cameras take seconds for an image.
    public static let snapshotTimeout: Duration = .seconds(25)

    /// A JPEG from a camera accessory, about `width` × `height` pixels, from the provider that owns it
    /// (`SnapshotProvider`).
    /// - Throws: `.notReady`, `.unknownAccessory`, `.unreachable`; `.failed` when its provider cannot take
    ///   snapshots; the provider's errors (`.status`, `.failed`), and `.timedOut` after `snapshotTimeout`
    ///   or `writeTimeout`, whichever is longer.
    public func snapshot(_ id: AccessoryID, width: Int, height: Int) async throws(HomeStoreError) -> [UInt8] {
        let entry = try usableAccessory(id)
        guard let provider = providers[entry.provider].provider as? any SnapshotProvider else {
            throw .failed("accessory \(id) cannot take snapshots: its backend has no camera support")
        }
        let timeout = max(configuration.writeTimeout, Self.snapshotTimeout)
        let outcome: Result<[UInt8], AccessoryError>? = await withDeadline(timeout) {
            () async -> Result<[UInt8], AccessoryError> in
            do throws(AccessoryError) {
                return .success(try await provider.snapshot(id, width: width, height: height))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case nil: throw .timedOut(seconds: timeout.inSeconds)
        case .success(let image)?: return image
        case .failure(let error)?: throw HomeStoreError(error, accessory: id, timeout: timeout)
        }
    }
}
