import Foundation

/// A plain HTTP/1.1 client over a loopback socket, for tests of the web page's server: it sends exactly
/// the bytes a test gives (an unnormalized path, a wrong length), which a URL library would correct.
public enum HTTPTestClient {
    /// An answer as read from the socket.
    public struct Response: Sendable {
        public var status: Int
        /// Header values by lower-case name (the last one of a name wins).
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object, nil when it is none.
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        /// The body as a JSON array of objects, nil when it is none.
        public var jsonArray: [[String: Any]]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]]
        }
    }

    /// Sends one request (`Connection: close`) and reads the whole answer.
    /// - Parameter headers: besides `Host` (`127.0.0.1:<port>` unless given) and `Content-Length`.
    public static func request(
        port: UInt16, _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) async throws -> Response {
        guard let fd = await LoopbackSocket.connect(port: port) else {
            throw TestSupportError.timedOut("cannot connect to 127.0.0.1:\(port)")
        }
        defer { LoopbackSocket.close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        var all = headers
        if all["Host"] == nil { all["Host"] = "127.0.0.1:\(port)" }
        all["Connection"] = "close"
        if !body.isEmpty || method == "POST" { all["Content-Length"] = all["Content-Length"] ?? String(body.count) }
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        await LoopbackSocket.write(fd, Array(head.utf8) + body)
        let bytes = await LoopbackSocket.read(fd, count: 16 * 1024 * 1024)
        return try parse(bytes)
    }

    /// Parses a whole answer (status line, headers, a body with `Content-Length` or up to the end).
    public static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw TestSupportError.timedOut(
                "no complete HTTP head in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw TestSupportError.timedOut("bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length {
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }
}
