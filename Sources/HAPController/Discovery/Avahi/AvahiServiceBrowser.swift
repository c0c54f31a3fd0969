#if canImport(CAvahi)
    import Synchronization

    /// The `ServiceBrowser` of Linux: browses through the system's avahi-daemon with Avahi's client library,
    /// which reaches the daemon over the D-Bus system bus (`/run/dbus/system_bus_socket`). One browse at a
    /// time; `browse` may be called again once the last one ended or was stopped.
    public final class AvahiServiceBrowser: ServiceBrowser {
        /// Events kept for a reader that is behind: beyond this, the oldest are dropped (a flood of
        /// announcements must not grow memory without bound).
        static let bufferedEvents = 10_000

        private let session = Mutex<AvahiSession?>(nil)

        public init() {}

        deinit {
            session.withLock { $0 }?.close()
        }

        public func browse(type: String, waitingForDaemon: Bool) async throws(DiscoveryError) -> AsyncStream<
            ServiceBrowserEvent
        > {
            let (stream, continuation) = AsyncStream.makeStream(
                of: ServiceBrowserEvent.self, bufferingPolicy: .bufferingNewest(Self.bufferedEvents))
            session.withLock { s in
                defer { s = nil }
                return s
            }?.close()
            let made = try AvahiSession(type: type, waitingForDaemon: waitingForDaemon, continuation: continuation)
            session.withLock { $0 = made }
            return stream
        }

        public func stop() async {
            session.withLock { s in
                defer { s = nil }
                return s
            }?.close()
        }
    }
#endif
