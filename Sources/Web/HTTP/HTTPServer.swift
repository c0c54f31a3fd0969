import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The web page's HTTP/1.1 server: libmicrohttpd (GNU libmicrohttpd manual; opened when the first server
/// starts, `MicroHTTPD`), one thread per connection,
/// at most `HTTPLimits.connections` connections and `HTTPLimits.connectionsPerClient` from one address,
/// each request's head and body due within `HTTPLimits.requestSeconds` (`ConnectionWatch`). Each request's body is collected (413 past
/// `HTTPLimits.maxBody`, answered before the body is read), then `handler` answers it; the connection's
/// thread waits for that answer, so a slow answer holds one connection and nothing else. An event stream
/// is written from its connection's thread as events come.
///
/// An owner of a C handle: `@unchecked Sendable` is safe because `daemon` is set once in `init` and
/// cleared only by `stop()`, under `lock`, and libmicrohttpd's functions used here may be called from any
/// thread.
public final class HTTPServer: @unchecked Sendable {
    /// What answers each request.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    private let lock = Mutex<DaemonHandle?>(nil)
    private let context: Unmanaged<ServerContext>
    /// Ends the connections past their deadline, until `stop()`.
    private let watchdog: Task<Void, Never>
    /// The port it listens on (the one the system chose when 0 was asked for).
    public let port: UInt16

    /// Starts listening on `host` (an IPv4 or IPv6 address, or `localhost`) and `port` (0: any free one).
    /// - Throws: `WebPageError.cannotListen` when the address is not one of this machine's or the port is
    ///   taken, `WebPageError.libraryMissing` when libmicrohttpd cannot be loaded.
    public init(host: String, port: UInt16, limits: HTTPLimits, handler: @escaping Handler) throws(WebPageError) {
        let library = try MicroHTTPD.shared()
        guard let address = SocketAddress(host: host, port: port) else {
            throw .cannotListen(host: host, port: port, reason: "not an IP address of this machine")
        }
        let context = Unmanaged.passRetained(ServerContext(library: library, limits: limits, handler: handler))
        var flags = UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
        if address.isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let daemon = address.withPointer { pointer in
            withUnsafePointer(to: library.functions) { functions in
                cmhd_start_daemon(
                    functions, flags, pointer, UInt32(limits.connections), UInt32(limits.connectionsPerClient),
                    UInt32(limits.idleTimeoutSeconds),
                    // Headers and the connection's buffers; bodies are copied out as they arrive.
                    32 * 1024, HTTPServer.access, context.toOpaque(), HTTPServer.completed, HTTPServer.notify,
                    context.toOpaque())
            }
        }
        guard let daemon else {
            context.release()
            let reason = errno == 0 ? "libmicrohttpd could not start" : String(cString: strerror(errno))
            throw .cannotListen(host: host, port: port, reason: reason)
        }
        self.context = context
        let watch = context.takeUnretainedValue().watch
        watchdog = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                watch.endLate()
            }
        }
        self.port = withUnsafePointer(to: library.functions) { cmhd_bound_port($0, daemon) }
        lock.withLock { $0 = DaemonHandle(daemon: daemon) }
    }

    /// Closes every event stream, stops accepting, waits for the connections' threads to end, and frees
    /// the daemon. Idempotent.
    public func stop() {
        guard
            let daemon = lock.withLock({ d -> DaemonHandle? in
                defer { d = nil }
                return d
            })?.daemon
        else { return }
        watchdog.cancel()
        let server = context.takeUnretainedValue()
        server.closeStreams()
        server.library.functions.stop_daemon(daemon)
        context.release()
    }

    deinit { stop() }

    // MARK: libmicrohttpd's callbacks, on its connection threads

    private static let access: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, upload, uploadSize, slot in
        guard let cls, let connection, let slot, let uploadSize else { return .NO }
        let server = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        guard let pending = slot.pointee else {
            // The first call: headers only. A body announced as too large is refused before it is read.
            let request = PendingRequest(connection: watched(connection, server: server))
            slot.pointee = Unmanaged.passRetained(request).toOpaque()
            if let length = header(connection, "Content-Length", server: server).flatMap(Int.init),
                length > server.limits.maxBody
            {
                request.tooLarge = true
                request.connection?.disarm()
                return queue(server.tooLarge, on: connection, server: server)
            }
            return .YES
        }
        let request = Unmanaged<PendingRequest>.fromOpaque(pending).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !request.tooLarge, let upload {
                let count = uploadSize.pointee
                if request.body.count + count > server.limits.maxBody {
                    request.tooLarge = true
                    request.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: count) {
                        request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        // The whole request is here: no deadline while it is answered (an event stream stays open).
        request.connection?.disarm()
        if request.tooLarge { return queue(server.tooLarge, on: connection, server: server) }
        var headers: [String: String] = [:]
        for name in ["Host", "Authorization", "Cookie", "Content-Type", "Origin", "Accept"] {
            if let value = header(connection, name, server: server) { headers[name.lowercased()] = value }
        }
        let parsed = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
            headers: headers, body: request.body, client: request.connection?.client ?? "")
        request.body = []
        return queue(server.answer(parsed), on: connection, server: server)
    }

    private static let completed: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
        if let cls, let connection {
            let server = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
            if let watched = watched(connection, server: server) { server.watch.answered(watched) }
        }
        guard let slot, let pending = slot.pointee else { return }
        Unmanaged<PendingRequest>.fromOpaque(pending).release()
        slot.pointee = nil
    }

    /// A connection opened or closed: `ConnectionWatch` follows it, kept in the socket's context.
    private static let notify: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls, let connection, let socketContext else { return }
        let server = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            let functions = server.library.functions
            let watched = withUnsafePointer(to: functions) { table in
                WatchedConnection(
                    descriptor: cmhd_connection_fd(table, connection),
                    client: WatchedConnection.numericAddress(cmhd_client_address(table, connection)))
            }
            socketContext.pointee = Unmanaged.passRetained(watched).toOpaque()
            server.watch.opened(watched)
        } else if let kept = socketContext.pointee {
            let watched = Unmanaged<WatchedConnection>.fromOpaque(kept)
            server.watch.closed(watched.takeUnretainedValue())
            watched.release()
            socketContext.pointee = nil
        }
    }

    private static func watched(_ connection: OpaquePointer, server: ServerContext) -> WatchedConnection? {
        let kept = withUnsafePointer(to: server.library.functions) { cmhd_socket_context($0, connection) }
        return kept.map { Unmanaged<WatchedConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func header(_ connection: OpaquePointer, _ name: String, server: ServerContext) -> String? {
        server.library.functions.lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer, server: ServerContext)
        -> MHD_Result
    {
        let mhd = server.library.functions
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                mhd.create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                    MHD_ResponseMemoryMode(rawValue: 2)!)
            }
        case .events(let stream):
            let box = Unmanaged.passRetained(stream).toOpaque()
            made = mhd.create_response_from_callback(
                UInt64.max, 4096, HTTPServer.readEvents, box, HTTPServer.freeEvents)
            if made == nil { Unmanaged<EventStream>.fromOpaque(box).release() }
        }
        guard let made else { return .NO }
        defer { mhd.destroy_response(made) }
        for (name, value) in response.headers { _ = mhd.add_response_header(made, name, value) }
        for (name, value) in server.securityHeaders where response.header(name) == nil {
            _ = mhd.add_response_header(made, name, value)
        }
        return mhd.queue_response(connection, UInt32(response.status), made)
    }

    private static let readEvents: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -1 }
        let stream = Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue()
        guard let chunk = stream.next(max: max, timeout: .seconds(15)) else {
            return -1  // MHD_CONTENT_READER_END_OF_STREAM
        }
        chunk.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        return chunk.count
    }

    private static let freeEvents: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let stream = Unmanaged<EventStream>.fromOpaque(cls)
        stream.takeUnretainedValue().close()
        stream.release()
    }
}

/// What the callbacks share: the limits and the handler, and the open event streams so that `stop()` can
/// end them (libmicrohttpd waits for every connection's thread).
final class ServerContext: Sendable {
    let library: MicroHTTPD
    let limits: HTTPLimits
    let handler: HTTPServer.Handler
    let tooLarge: HTTPResponse
    let watch: ConnectionWatch
    /// Sent with every answer: no framing by other sites, no guessing of content types, no referrer.
    let securityHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"),
    ]
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])

    init(library: MicroHTTPD, limits: HTTPLimits, handler: @escaping HTTPServer.Handler) {
        self.library = library
        self.limits = limits
        self.handler = handler
        watch = ConnectionWatch(allowed: .seconds(limits.requestSeconds))
        tooLarge = .json(status: 413, error: "the request body is larger than \(limits.maxBody) bytes")
    }

    /// The handler's answer, waited for on this connection's thread (one thread per connection).
    func answer(_ request: HTTPRequest) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<HTTPResponse?>(nil)
        let handler = handler
        Task {
            let response = await handler(request)
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        let response = result.withLock { $0 }!
        if case .events(let stream) = response.body { track(stream) }
        return response
    }

    private func track(_ stream: EventStream) {
        streams.withLock { open in
            open = open.filter { !$0.value.isClosed }
            open[ObjectIdentifier(stream)] = stream
        }
    }

    func closeStreams() {
        let open = streams.withLock { s -> [EventStream] in
            defer { s = [:] }
            return Array(s.values)
        }
        for stream in open { stream.close() }
    }
}

/// The daemon's pointer, to keep under a lock: `@unchecked Sendable` because libmicrohttpd's daemon may be
/// stopped from any thread, and `HTTPServer` stops it once.
private struct DaemonHandle: @unchecked Sendable {
    let daemon: OpaquePointer
}

/// The body of a request being read, kept in libmicrohttpd's per-request slot.
private final class PendingRequest {
    /// The connection it came on (nil when libmicrohttpd kept no context for it).
    let connection: WatchedConnection?
    var body: [UInt8] = []
    var tooLarge = false

    init(connection: WatchedConnection?) {
        self.connection = connection
    }
}
