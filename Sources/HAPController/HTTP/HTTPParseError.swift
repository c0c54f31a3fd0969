/// Why the byte stream from an accessory is not HTTP the parser accepts. After one of these the
/// connection's framing is lost: close it. Prints as one line.
public enum HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status line is not `HTTP/x.y <code> [reason]` or `EVENT/x.y <code> [reason]`.
    case invalidStatusLine(String)
    /// A header line is not `name: value` with a token name.
    case invalidHeader(String)
    /// The status line and headers together exceed the limit, in bytes.
    case headersTooLarge(limit: Int)
    /// More header fields than the limit.
    case tooManyHeaders(limit: Int)
    /// `Content-Length` is not a non-negative decimal number, or repeats with different values.
    case invalidContentLength(String)
    /// The body (declared or de-chunked) exceeds the limit, in bytes.
    case bodyTooLarge(limit: Int)
    /// A transfer coding other than `chunked` or `identity`.
    case unsupportedTransferEncoding(String)
    /// A chunk-size line that is not hexadecimal, or chunk data not followed by CRLF.
    case invalidChunk(String)
    /// The stream ended in the middle of a message (see `HTTPResponseParser.finish()`).
    case truncated

    public var description: String {
        switch self {
        case .invalidStatusLine(let l): return "malformed HTTP status line: \(Self.clip(l))"
        case .invalidHeader(let l): return "malformed HTTP header line: \(Self.clip(l))"
        case .headersTooLarge(let n): return "HTTP headers larger than \(n) bytes"
        case .tooManyHeaders(let n): return "more than \(n) HTTP header fields"
        case .invalidContentLength(let v): return "invalid Content-Length: \(Self.clip(v))"
        case .bodyTooLarge(let n): return "HTTP body larger than \(n) bytes"
        case .unsupportedTransferEncoding(let v): return "unsupported Transfer-Encoding: \(Self.clip(v))"
        case .invalidChunk(let why): return "malformed chunked body: \(Self.clip(why))"
        case .truncated: return "the connection ended in the middle of an HTTP message"
        }
    }

    /// Keeps hostile text short and on one line.
    private static func clip(_ s: String) -> String {
        let one = String(s.map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) ? "?" : $0 })
        return one.count > 80 ? String(one.prefix(77)) + "..." : one
    }
}
