public import HomeModel

/// A backend that can take a still image from a camera accessory: a capability beside
/// `AccessoryProvider` that a provider adopts when its accessories can have cameras (the HAP provider,
/// with HAP's `POST /resource`, docs/hap-notes.md §4.9). The store routes `snapshot` requests to the
/// provider that owns the accessory, so the `Gateway` asks for images without knowing HAP.
public protocol SnapshotProvider: AccessoryProvider {
    /// A JPEG of what the camera sees now, about `width` × `height` pixels (the accessory chooses the
    /// exact size).
    /// - Throws: `AccessoryError` when the accessory cannot be reached, refuses (`.status`), or answers
    ///   with something that is not an image (`.failed`).
    func snapshot(_ accessory: AccessoryID, width: Int, height: Int) async throws(AccessoryError) -> [UInt8]
}
