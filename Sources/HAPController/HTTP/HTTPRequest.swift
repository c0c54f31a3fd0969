/// The HTTP methods HAP uses (HAP spec §6.7).
public enum HTTPMethod: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
}

/// The content types of HAP bodies (docs/hap-notes.md §0).
public enum HAPContentType {
    /// JSON bodies: `/accessories`, `/characteristics`, `/prepare`.
    public static let json = "application/hap+json"
    /// TLV8 bodies: `/pair-setup`, `/pair-verify`, `/pairings`.
    public static let pairingTLV8 = "application/pairing+tlv8"
}

/// A request to an accessory, written as HTTP/1.1 the way accessories accept it (docs/hap-notes.md §0):
/// `\r\n` line endings (a bare `\n` breaks some, homekit_python#13), a `Host` header always, and the whole
/// request as one buffer so that it goes out in one write (some accessories break when a request spans
/// TCP segments, homekit_python#12/#16).
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST` or `PUT`.
    public var method: HTTPMethod
    /// The request target with its query, e.g. `/characteristics?id=1.10,1.11`.
    public var path: String
    /// The `Content-Type` of `body`, e.g. `HAPContentType.json`; nil for requests without a body.
    public var contentType: String?
    /// More header fields, written after `Host`, `Content-Type` and `Content-Length`.
    public var headers: HTTPHeaders
    /// The body, sent right after the head in the same buffer.
    public var body: [UInt8]

    public init(
        method: HTTPMethod, path: String, contentType: String? = nil, headers: HTTPHeaders = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// `GET path`.
    public static func get(_ path: String) -> HTTPRequest { HTTPRequest(method: .get, path: path) }

    /// `PUT path` with a JSON body.
    public static func put(_ path: String, json: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: .put, path: path, contentType: HAPContentType.json, body: json)
    }

    /// `POST path` with a TLV8 body (pair-setup, pair-verify, pairings).
    public static func post(_ path: String, tlv8: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: .post, path: path, contentType: HAPContentType.pairingTLV8, body: tlv8)
    }

    /// The request's bytes for an accessory at `host` (an IP address or a name, without the port).
    ///
    /// `Content-Length` is written whenever there is a body, and for every POST and PUT. Carriage returns
    /// and line feeds inside the path or header fields are dropped, so a field can never end early and
    /// smuggle another.
    public func encoded(host: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 + path.utf8.count + body.count)
        func line(_ parts: String...) {
            for part in parts { bytes.append(contentsOf: part.utf8) }
            bytes.append(contentsOf: [0x0D, 0x0A])
        }
        line(method.rawValue, " ", Self.oneLine(path), " HTTP/1.1")
        line("Host: ", Self.hostHeaderValue(for: host))
        if let contentType { line("Content-Type: ", Self.oneLine(contentType)) }
        if !body.isEmpty || method != .get { line("Content-Length: ", String(body.count)) }
        for field in headers { line(Self.oneLine(field.name), ": ", Self.oneLine(field.value)) }
        line()
        bytes.append(contentsOf: body)
        return bytes
    }

    /// The value of the `Host` header for `host`: the address alone, without the port, IPv6 in brackets
    /// and without its zone (`%eth0` means nothing to the peer). aiohomekit connection.py sends the same;
    /// it avoids the mDNS name, which overflowed buffers in some accessories.
    public static func hostHeaderValue(for host: String) -> String {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // On UTF-8: `String.contains(String)` is Foundation's, 3 % of a read's CPU time.
        guard bare.utf8.contains(UInt8(ascii: ":")) else { return oneLine(bare) }
        let withoutZone =
            bare.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? bare
        return "[\(oneLine(withoutZone))]"
    }

    private static func oneLine(_ s: String) -> String {
        s.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A })
            ? String(decoding: s.utf8.filter { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self) : s
    }
}
