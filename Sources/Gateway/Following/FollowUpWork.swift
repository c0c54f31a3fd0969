import HomeModel

/// Work that a batch of store changes leaves for a task of its own, because it reads the store, which a
/// batch, delivered synchronously by the store, must not do: accessories whose Name changed, and whether
/// `bridge/accessories` needs publishing again. Batches add to it until the task runs and takes it all.
struct FollowUpWork {
    private var renamed: Set<AccessoryID> = []
    private var listChanged = false
    private var isScheduled = false

    /// Adds a batch's work. Returns true when a task must be started to do it: there is work and none is
    /// scheduled yet.
    mutating func add(renamed ids: Set<AccessoryID>, listChanged changed: Bool) -> Bool {
        renamed.formUnion(ids)
        listChanged = listChanged || changed
        guard !renamed.isEmpty || listChanged, !isScheduled else { return false }
        isScheduled = true
        return true
    }

    /// Takes the work for the task that does it: the renamed accessories, in order, and whether the list
    /// changed. Later batches schedule a new task.
    mutating func take() -> (renamed: [AccessoryID], listChanged: Bool) {
        defer {
            renamed = []
            listChanged = false
            isScheduled = false
        }
        return (renamed.sorted(), listChanged)
    }
}
