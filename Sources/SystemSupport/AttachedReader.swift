/// The one reader attached to a queue by a wake-up, and whether it is reading: the rule that lets a burst
/// of pushes wake an idle reader once. A push claims the wake-up only when the reader is idle and has
/// something to take, and from then on the reader counts as reading until it finds the queue empty
/// (`wentIdle()`); the pushes meanwhile only add to the queue.
///
/// Kept inside the queue's own state, under its lock: `HandOffQueue` (commands from libmosquitto's thread)
/// and the home store's `ProviderEventQueue` (a provider's events) each hold one. The wake-up is returned,
/// never called here, so that the queue calls it outside its lock.
public struct AttachedReader: Sendable {
    @usableFromInline var wake: (@Sendable () -> Void)?
    @usableFromInline var isReading = false

    /// No reader attached.
    @inlinable
    public init() {}

    /// Whether a reader is attached and idle: it has taken everything it was woken for.
    @inlinable
    public var isIdle: Bool { wake != nil && !isReading }

    /// Makes `wake` the reader, replacing any earlier one; it counts as idle.
    @inlinable
    public mutating func attach(_ wake: @escaping @Sendable () -> Void) {
        self.wake = wake
        isReading = false
    }

    /// Forgets the reader: nothing claims its wake-up any more.
    @inlinable
    public mutating func detach() {
        wake = nil
    }

    /// The reader's wake-up, when one is attached and idle and `hasWork` says something waits for it; the
    /// reader counts as reading from now on. Nil otherwise: nobody to wake, or it takes the work anyway.
    @inlinable
    public mutating func claim(when hasWork: Bool) -> (@Sendable () -> Void)? {
        guard hasWork, let wake, !isReading else { return nil }
        isReading = true
        return wake
    }

    /// The reader found nothing to take: the next push wakes it again.
    @inlinable
    public mutating func wentIdle() {
        isReading = false
    }
}
