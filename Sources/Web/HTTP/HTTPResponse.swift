import JSON

/// What the router answers: a status, headers, and either the whole body or an event stream that stays
/// open (`text/event-stream`, the WHATWG HTML "Server-sent events" format).
public struct HTTPResponse: Sendable {
    /// The body: bytes sent at once, or a stream of events written as they come.
    public enum Body: Sendable {
        case bytes([UInt8])
        case events(EventStream)
    }

    /// The HTTP status code.
    public var status: Int
    /// Headers besides `Content-Length`, which the server sets.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// A response with `body` as `contentType`.
    public init(status: Int, contentType: String, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = .bytes(body)
    }

    /// An event stream (status 200) that writes what `stream` is given until it is closed.
    public init(events stream: EventStream) {
        status = 200
        headers = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store")]
        body = .events(stream)
    }

    /// The body's bytes, empty for a stream (tests read these).
    public var bytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }

    /// The value of the first header called `name` (any case), nil when there is none.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

extension HTTPResponse {
    /// `{"status":"error","error":"…"}` with `status`: the shape every refusal of the API has, as the MQTT
    /// bridge API's answers (docs/DESIGN.md "Topics").
    static func json(status: Int, error: String) -> HTTPResponse {
        .json(status: status, JSONValue.object(["status": "error", "error": .string(error)]).description)
    }

    /// The response with `Retry-After: seconds` (RFC 9110 §10.2.3).
    func retrying(after seconds: Int) -> HTTPResponse {
        var response = self
        response.headers.append(("Retry-After", String(seconds)))
        return response
    }

    /// `json` (already JSON text) with `status`.
    static func json(status: Int = 200, _ json: String) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json; charset=utf-8", body: Array(json.utf8),
            headers: [("Cache-Control", "no-store")])
    }
}
