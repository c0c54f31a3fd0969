#if canImport(CAvahi)
    import CAvahi

    /// One browse through Avahi's client library: a threaded event loop, a client connected to the
    /// avahi-daemon over D-Bus, a service browser, and one service resolver per service it reports (per
    /// interface and protocol), kept open so that Avahi reports every change of the service's data
    /// (Avahi's `lookup.h`: "keep it open, in which case you will be notified via AVAHI_RESOLVER_FOUND
    /// every time the service data changes"). The results of the resolvers of one instance name are merged
    /// into one `ServiceInstance`: the newest host, port and TXT record, the addresses of all (an IPv4 and an
    /// IPv6 resolver each give one).
    ///
    /// `@unchecked Sendable`, and safe: every callback runs on the event loop's one thread, which Avahi runs
    /// with its lock held; `init` touches the state before that thread starts and `close` after it stopped,
    /// and nothing else does.
    final class AvahiSession: @unchecked Sendable {
        /// The most services (per interface and protocol) resolved at once; more are ignored until some go.
        static let maximumItems = 1024
        /// The most TXT strings read from one record before the first `TXTRecord.maximumEntries` are kept.
        static let maximumTXTStrings = 1024

        private struct ItemKey: Hashable {
            var interface: AvahiIfIndex
            var proto: AvahiProtocol
            var name: String
            var domain: String
        }

        private struct Resolved: Hashable {
            var host: String
            var address: String?
            var port: UInt16
            var txt: [[UInt8]]
            /// Grows with each result, so that the newest host, port and TXT record win.
            var order: Int
        }

        /// Avahi's functions (`AvahiLibrary`).
        private let avahi: cavahi_functions
        private let poll: OpaquePointer
        private let type: String
        private let continuation: AsyncStream<ServiceBrowserEvent>.Continuation
        private var client: OpaquePointer?
        private var browser: OpaquePointer?
        private var resolvers: [ItemKey: OpaquePointer] = [:]
        private var itemOfResolver: [OpaquePointer: ItemKey] = [:]
        private var results: [ItemKey: Resolved] = [:]
        private var itemsByName: [String: Set<ItemKey>] = [:]
        private var reported: [String: ServiceInstance] = [:]
        private var order = 0
        private var started = false

        /// Connects to the daemon and starts browsing for `type`; events go to `continuation`.
        /// - Throws: `DiscoveryError.daemonUnavailable` when the daemon (or, with `waitingForDaemon`, its
        ///   bus) cannot be reached or the event loop cannot start, `DiscoveryError.libraryMissing` when
        ///   Avahi's libraries cannot be loaded.
        init(type: String, waitingForDaemon: Bool, continuation: AsyncStream<ServiceBrowserEvent>.Continuation)
            throws(DiscoveryError)
        {
            let avahi = try AvahiLibrary.shared().functions
            self.avahi = avahi
            guard let poll = avahi.threaded_poll_new() else {
                throw .daemonUnavailable(reason: "cannot make Avahi's event loop")
            }
            self.poll = poll
            self.type = type
            self.continuation = continuation
            var error: Int32 = 0
            let flags = waitingForDaemon ? AVAHI_CLIENT_NO_FAIL : AvahiClientFlags(0)
            // The callback runs the first time inside avahi_client_new, on this thread.
            let made = avahi.client_new(
                avahi.threaded_poll_get(poll), flags,
                { client, state, context in
                    guard let client, let context else { return }
                    Unmanaged<AvahiSession>.fromOpaque(context).takeUnretainedValue().clientChanged(client, state)
                }, Unmanaged.passUnretained(self).toOpaque(), &error)
            guard let made else {
                avahi.threaded_poll_free(poll)
                throw .daemonUnavailable(reason: describe(error))
            }
            client = made
            guard avahi.threaded_poll_start(poll) >= 0 else {
                avahi.client_free(made)
                avahi.threaded_poll_free(poll)
                throw .daemonUnavailable(reason: "cannot start Avahi's event loop")
            }
            started = true
        }

        /// Stops the event loop (no callback runs after it), frees the client with its browser and resolvers,
        /// and finishes the stream. Never called on the event loop's thread.
        func close() {
            if started { _ = avahi.threaded_poll_stop(poll) }
            // Freeing the client frees its browsers and resolvers too (avahi-client/client.h).
            if let client { avahi.client_free(client) }
            client = nil
            browser = nil
            resolvers = [:]
            avahi.threaded_poll_free(poll)
            continuation.finish()
        }

        // MARK: - Callbacks (on the event loop's thread)

        private func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
            switch state {
            case AVAHI_CLIENT_S_RUNNING, AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
                guard browser == nil else { return }
                let made = avahi.service_browser_new(
                    client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil,
                    AvahiLookupFlags(0),
                    { _, interface, proto, event, name, _, domain, _, context in
                        guard let context else { return }
                        let session = Unmanaged<AvahiSession>.fromOpaque(context).takeUnretainedValue()
                        session.browserEvent(
                            event, interface, proto, name.map { String(cString: $0) },
                            domain.map { String(cString: $0) })
                    }, Unmanaged.passUnretained(self).toOpaque())
                guard let made else {
                    continuation.yield(
                        .unavailable(reason: "cannot browse: \(describe(avahi.client_errno(client)))"))
                    return
                }
                browser = made
                continuation.yield(.browsing)
            case AVAHI_CLIENT_CONNECTING:
                // The daemon is not running (yet, or any more): the client waits for it; what it reported
                // is gone, and the browser must be made again.
                forgetEverything()
                continuation.yield(.unavailable(reason: "the daemon is not running"))
            default:  // AVAHI_CLIENT_FAILURE: the client is finished.
                forgetEverything()
                continuation.yield(.unavailable(reason: describe(avahi.client_errno(client))))
                continuation.finish()
            }
        }

        private func browserEvent(
            _ event: AvahiBrowserEvent, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ name: String?,
            _ domain: String?
        ) {
            switch event {
            case AVAHI_BROWSER_NEW:
                guard let client, let name, let domain else { return }
                let key = ItemKey(interface: interface, proto: proto, name: name, domain: domain)
                guard resolvers[key] == nil else { return }
                // Beyond the limit services are ignored without a word here: HAPDiscovery's lower limit
                // says so in the log.
                guard resolvers.count < Self.maximumItems else { return }
                // The address family of the protocol the service was found over: an IPv4 and an IPv6 item
                // of one service give both its addresses (avahi-client/lookup.h on aprotocol).
                let resolver = avahi.service_resolver_new(
                    client, interface, proto, name, type, domain, proto, AvahiLookupFlags(0),
                    { resolver, _, _, event, _, _, _, host, address, port, txt, _, context in
                        guard let context, let resolver else { return }
                        let session = Unmanaged<AvahiSession>.fromOpaque(context).takeUnretainedValue()
                        session.resolverEvent(resolver, event, host, address, port, txt)
                    }, Unmanaged.passUnretained(self).toOpaque())
                guard let resolver else { return }
                resolvers[key] = resolver
                itemOfResolver[resolver] = key
                itemsByName[name, default: []].insert(key)
            case AVAHI_BROWSER_REMOVE:
                guard let name, let domain else { return }
                remove(ItemKey(interface: interface, proto: proto, name: name, domain: domain))
            case AVAHI_BROWSER_FAILURE:
                if let browser { _ = avahi.service_browser_free(browser) }
                browser = nil
                forgetEverything()
                let reason = client.map { describe(avahi.client_errno($0)) } ?? "the browser failed"
                continuation.yield(.unavailable(reason: reason))
            default:  // AVAHI_BROWSER_ALL_FOR_NOW, AVAHI_BROWSER_CACHE_EXHAUSTED: nothing to do.
                break
            }
        }

        private func resolverEvent(
            _ resolver: OpaquePointer, _ event: AvahiResolverEvent, _ host: UnsafePointer<CChar>?,
            _ address: UnsafePointer<AvahiAddress>?,
            _ port: UInt16, _ txt: UnsafeMutablePointer<AvahiStringList>?
        ) {
            guard let key = itemOfResolver[resolver] else { return }
            guard event == AVAHI_RESOLVER_FOUND else {
                // Not resolved in time (the service went away mid-resolve, or never answered): drop the
                // resolver; the browser's REMOVE, or a NEW after it, follows if the service comes and goes.
                _ = avahi.service_resolver_free(resolver)
                resolvers[key] = nil
                itemOfResolver[resolver] = nil
                // Never resolved: nothing of it is kept, so that services that vanish mid-resolve by the
                // thousand leave nothing behind.
                if results[key] == nil {
                    itemsByName[key.name]?.remove(key)
                    if itemsByName[key.name]?.isEmpty == true { itemsByName[key.name] = nil }
                }
                return
            }
            order += 1
            results[key] = Resolved(
                host: host.map { String(cString: $0) } ?? "", address: address.map(text), port: port,
                txt: strings(txt), order: order)
            report(key.name)
        }

        // MARK: - State

        private func remove(_ key: ItemKey) {
            if let resolver = resolvers.removeValue(forKey: key) {
                _ = avahi.service_resolver_free(resolver)
                itemOfResolver[resolver] = nil
            }
            results[key] = nil
            itemsByName[key.name]?.remove(key)
            if itemsByName[key.name]?.isEmpty == true { itemsByName[key.name] = nil }
            report(key.name)
        }

        /// Reports the merged state of the instance `name` when it changed: found, or removed when none of
        /// its items is left resolved.
        private func report(_ name: String) {
            let resolved = (itemsByName[name] ?? []).compactMap { results[$0] }
            guard let newest = resolved.max(by: { $0.order < $1.order }) else {
                if reported.removeValue(forKey: name) != nil { continuation.yield(.removed(name: name)) }
                return
            }
            var addresses: [String] = []
            for result in resolved.sorted(by: { $0.order > $1.order }) {
                if let address = result.address, !addresses.contains(address) { addresses.append(address) }
            }
            let instance = ServiceInstance(
                name: name, hostName: newest.host, port: newest.port, addresses: addresses, txt: newest.txt)
            guard reported[name] != instance else { return }
            reported[name] = instance
            continuation.yield(.found(instance))
        }

        /// The daemon went away: its browser and resolvers are useless, and everything reported is gone.
        private func forgetEverything() {
            for resolver in resolvers.values { _ = avahi.service_resolver_free(resolver) }
            resolvers = [:]
            itemOfResolver = [:]
            results = [:]
            itemsByName = [:]
            reported = [:]
            if let browser { _ = avahi.service_browser_free(browser) }
            browser = nil
        }

        // MARK: - Conversions

        private func describe(_ error: Int32) -> String {
            avahi.strerror(error).map { String(cString: $0) } ?? "Avahi error \(error)"
        }

        private func text(_ address: UnsafePointer<AvahiAddress>) -> String {
            var buffer = [CChar](repeating: 0, count: 64)
            guard avahi.address_snprint(&buffer, buffer.count, address) != nil else { return "" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        /// The strings of a TXT record in the record's order (Avahi's list holds them last first), at most
        /// `maximumTXTStrings`, each at most `TXTRecord.maximumLength` bytes.
        private func strings(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [[UInt8]] {
            var strings: [[UInt8]] = []
            var node = list
            while let current = node, strings.count < Self.maximumTXTStrings {
                let size = min(avahi.string_list_get_size(current), TXTRecord.maximumLength)
                if let text = avahi.string_list_get_text(current) {
                    strings.append(Array(UnsafeBufferPointer(start: text, count: size)))
                }
                node = avahi.string_list_get_next(current)
            }
            return strings.reversed()
        }
    }
#endif
