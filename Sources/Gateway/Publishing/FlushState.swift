/// What holds a flush back or schedules one (`Gateway+Publishing.swift`).
struct FlushState {
    /// A `flushAfterThisJob()` is pending.
    var isFlushScheduled = false
    /// The write of the slug map under way (`saveSlugs()`); what `flush()` would send waits for it.
    var slugWrite: Task<Void, Never>?
    /// A flush waits for the slug map to be written.
    var isFlushAfterSlugs = false
    /// The rename of a slug under way (`renameSlug(_:to:)`), which a later one waits for.
    var renaming: Task<Void, Never>?
}

extension Gateway {
    /// A `flushAfterThisJob()` is pending.
    var isFlushScheduled: Bool {
        get { flushing.isFlushScheduled }
        set { flushing.isFlushScheduled = newValue }
    }

    /// The write of the slug map under way.
    var slugWrite: Task<Void, Never>? {
        get { flushing.slugWrite }
        set { flushing.slugWrite = newValue }
    }

    /// A flush waits for the slug map to be written.
    var isFlushAfterSlugs: Bool {
        get { flushing.isFlushAfterSlugs }
        set { flushing.isFlushAfterSlugs = newValue }
    }

    /// The rename of a slug under way.
    var renaming: Task<Void, Never>? {
        get { flushing.renaming }
        set { flushing.renaming = newValue }
    }
}
