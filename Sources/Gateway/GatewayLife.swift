/// Where the gateway is in its life: ready once the store's first sync is published, stopped by `stop()`,
/// with the tasks it started, which `stop()` cancels.
struct GatewayLife {
    /// The store's first sync is registered: changes are applied and commands taken.
    var isReady = false
    /// Whether the first full publish after the store's sync has gone out, `bridge/state` online last:
    /// what systemd's `READY=1` and the health check wait for.
    var hasPublishedHome = false
    var isStopped = false
    var tasks: [Task<Void, Never>] = []
}

extension Gateway {
    /// The store's first sync is registered.
    var isReady: Bool {
        get { life.isReady }
        set { life.isReady = newValue }
    }

    /// Whether the first full publish after the store's sync has gone out, `bridge/state` online last:
    /// what systemd's `READY=1` and the health check wait for.
    public internal(set) var hasPublishedHome: Bool {
        get { life.hasPublishedHome }
        set { life.hasPublishedHome = newValue }
    }

    /// `stop()` was called.
    var isStopped: Bool {
        get { life.isStopped }
        set { life.isStopped = newValue }
    }

    /// The tasks the gateway started, cancelled by `stop()`.
    var tasks: [Task<Void, Never>] {
        get { life.tasks }
        _modify { yield &life.tasks }
    }
}
