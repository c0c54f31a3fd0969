/// One complete message from an accessory: a response to the oldest request in flight, or an
/// unsolicited `EVENT/1.0` notification (docs/hap-notes.md §4.8).
///
/// Which one it is comes from the status line alone (`HTTP/1.1 200 OK` or `EVENT/1.0 200 OK`): an event
/// taken for a response would shift every later response by one (HA core#24094).
public struct HTTPMessage: Sendable, Hashable {
    /// What the status line says the message is.
    public enum Kind: Sendable, Hashable {
        /// `HTTP/…`: the answer to a request.
        case response
        /// `EVENT/…`: a characteristic notification, never an answer.
        case event
    }

    /// Response or event, from the status line.
    public var kind: Kind
    /// The status code, e.g. 200, 204, 207, 470.
    public var status: Int
    /// The reason phrase as sent (may be empty).
    public var reason: String
    /// The header fields, and the trailer fields of a chunked body.
    public var headers: HTTPHeaders
    /// The body, de-chunked when it came with `Transfer-Encoding: chunked`.
    public var body: [UInt8]

    public init(kind: Kind, status: Int, reason: String = "", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.kind = kind
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// The `Content-Type` header, e.g. `application/hap+json`.
    public var contentType: String? { headers["Content-Type"] }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
