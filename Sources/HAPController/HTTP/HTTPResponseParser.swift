/// An incremental parser for what an accessory sends: HTTP/1.1 responses and `EVENT/1.0` notifications
/// (HAP spec §6.8; docs/hap-notes.md §4.8), fed byte chunks as they arrive from the connection, split
/// anywhere.
///
/// Framing follows RFC 9112 §6: `Transfer-Encoding: chunked` wins over `Content-Length`; 1xx, 204 and
/// 304 have no body; a message with neither header has an empty body (an accessory keeps the connection
/// open, so "read until close" would never end; aiohomekit http/response.py does the same). Interim 1xx
/// responses are dropped. Lines may end in CRLF or a bare LF; header names compare in any case.
///
/// Hostile input ends in an `HTTPParseError` quickly and within the `Limits`; after an error the parser
/// stays failed and every later `feed` throws the same error.
public struct HTTPResponseParser: Sendable {
    /// Bounds on what one message may hold, so a broken or hostile peer cannot make the parser grow
    /// without end.
    public struct Limits: Sendable, Hashable {
        /// Status line, header fields and chunk trailers of one message, in bytes.
        public var maximumHeaderBytes: Int
        /// Header fields (plus trailer fields) of one message.
        public var maximumHeaderCount: Int
        /// The body of one message, in bytes (after de-chunking).
        public var maximumBodyBytes: Int

        /// 16 KiB of headers, 100 fields, 8 MiB of body: far above what HAP accessories send (a
        /// 150-accessory bridge's `/accessories` is a few hundred kB).
        public init(
            maximumHeaderBytes: Int = 16 * 1024, maximumHeaderCount: Int = 100, maximumBodyBytes: Int = 8 * 1024 * 1024
        ) {
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumHeaderCount = maximumHeaderCount
            self.maximumBodyBytes = maximumBodyBytes
        }
    }

    private enum State: Sendable {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTPParseError)
    }

    /// A chunk-size line longer than this (with extensions) is refused.
    private static let maximumChunkLineBytes = 1024

    /// The bounds this parser enforces.
    public let limits: Limits
    private var state = State.head
    private var buffer: [UInt8] = []
    /// Bytes of buffer capacity kept between messages.
    static let keptCapacity = 16 << 10
    /// Where unread bytes of `buffer` start.
    private var position = 0
    /// Where the search for the next line end resumes, so that byte-by-byte feeding stays linear.
    private var scanPosition = 0
    /// Head bytes of the message so far (status line, headers, trailers, blank lines before it).
    private var headBytes = 0
    private var message: HTTPMessage?

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Whether no part of a message is buffered: the stream is between messages.
    public var isIdle: Bool {
        if case .head = state { return message == nil && position == buffer.count }
        return false
    }

    /// Adds bytes from the connection and returns the messages they completed, in order.
    /// - Throws: `HTTPParseError` when the stream is not HTTP or breaks a limit; the parser is then
    ///   unusable (the framing is lost).
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTPParseError) -> [HTTPMessage] {
        if case .failed(let error) = state { throw error }
        buffer.append(contentsOf: bytes)
        var complete: [HTTPMessage] = []
        do throws(HTTPParseError) {
            while try step(into: &complete) {}
        } catch {
            state = .failed(error)
            buffer = []
            position = 0
            throw error
        }
        if position > 0 {
            buffer.removeSubrange(0..<position)
            scanPosition = max(scanPosition - position, 0)
            position = 0
        }
        // A large answer (`/accessories`) grew the buffer; an idle connection need not keep that capacity.
        if buffer.isEmpty, buffer.capacity > Self.keptCapacity { buffer = [] }
        return complete
    }

    /// Says whether the stream may end here (the peer closed the connection).
    /// - Throws: `HTTPParseError.truncated` when a message was only partly received, or the error that
    ///   failed the parser.
    public func finish() throws(HTTPParseError) {
        if case .failed(let error) = state { throw error }
        guard isIdle else { throw .truncated }
    }

    /// Makes one unit of progress; false when more bytes are needed.
    private mutating func step(into complete: inout [HTTPMessage]) throws(HTTPParseError) -> Bool {
        switch state {
        case .failed(let error):
            throw error
        case .head:
            guard let line = try nextHeadLine() else { return false }
            if message == nil {
                if !line.isEmpty { message = try Self.statusLine(line) }
            } else if line.isEmpty {
                try startBody(into: &complete)
            } else {
                try addHeader(line)
            }
            return true
        case .body(let remaining):
            let n = takeBody(upTo: remaining)
            guard n > 0 else { return false }
            if n == remaining { finishMessage(into: &complete) } else { state = .body(remaining: remaining - n) }
            return true
        case .chunkSize:
            guard
                let line = try nextLine(
                    limit: Self.maximumChunkLineBytes, tooLong: .invalidChunk("chunk-size line too long"))
            else { return false }
            let size = try Self.chunkSize(line.bytes)
            if size == 0 {
                state = .trailers
            } else {
                guard (message?.body.count ?? 0) + size <= limits.maximumBodyBytes else {
                    throw .bodyTooLarge(limit: limits.maximumBodyBytes)
                }
                state = .chunkData(remaining: size)
            }
            return true
        case .chunkData(let remaining):
            let n = takeBody(upTo: remaining)
            guard n > 0 else { return false }
            state = n == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            return true
        case .chunkDataEnd:
            guard let line = try nextLine(limit: 2, tooLong: .invalidChunk("chunk data longer than its size")) else {
                return false
            }
            guard line.bytes.isEmpty else { throw .invalidChunk("chunk data longer than its size") }
            state = .chunkSize
            return true
        case .trailers:
            guard let line = try nextHeadLine() else { return false }
            if line.isEmpty { finishMessage(into: &complete) } else { try addHeader(line) }
            return true
        }
    }

    /// The next line of the head or of the trailers, which share one size limit; nil when more bytes are
    /// needed.
    private mutating func nextHeadLine() throws(HTTPParseError) -> ArraySlice<UInt8>? {
        guard
            let line = try nextLine(
                limit: limits.maximumHeaderBytes - headBytes,
                tooLong: .headersTooLarge(limit: limits.maximumHeaderBytes))
        else { return nil }
        headBytes += line.consumed
        return line.bytes
    }

    /// Moves up to `remaining` buffered bytes into the body; returns how many it moved.
    private mutating func takeBody(upTo remaining: Int) -> Int {
        let n = min(remaining, buffer.count - position)
        message?.body.append(contentsOf: buffer[position..<position + n])
        position += n
        return n
    }

    /// The next line without its CRLF or LF, and how many bytes it used; nil when no line end has
    /// arrived yet.
    /// - Throws: `tooLong` when the line would use more than `limit` bytes.
    private mutating func nextLine(limit: Int, tooLong: HTTPParseError) throws(HTTPParseError) -> (
        bytes: ArraySlice<UInt8>, consumed: Int
    )? {
        let start = position
        var i = max(scanPosition, start)
        while i < buffer.count, buffer[i] != 0x0A { i += 1 }
        guard i < buffer.count else {
            scanPosition = i
            if buffer.count - start > limit { throw tooLong }
            return nil
        }
        let consumed = i + 1 - start
        if consumed > limit { throw tooLong }
        position = i + 1
        scanPosition = position
        let end = i > start && buffer[i - 1] == 0x0D ? i - 1 : i
        return (buffer[start..<end], consumed)
    }

    /// Parses `HTTP/1.1 200 OK` or `EVENT/1.0 200 OK` (reason optional).
    private static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPMessage {
        let invalid = { HTTPParseError.invalidStatusLine(String(decoding: line, as: UTF8.self)) }
        guard let slash = line.firstIndex(of: UInt8(ascii: "/")) else { throw invalid() }
        let kind: HTTPMessage.Kind
        let protocolName = line[line.startIndex..<slash]
        if protocolName.elementsEqual("HTTP".utf8) {
            kind = .response
        } else if protocolName.elementsEqual("EVENT".utf8) {
            kind = .event
        } else {
            throw invalid()
        }
        var i = slash + 1
        let version = line[i...].prefix { $0 != 0x20 }
        guard isVersion(version) else { throw invalid() }
        i = version.endIndex
        guard i < line.endIndex, line[i] == 0x20 else { throw invalid() }
        i += 1
        let code = line[i...].prefix(3)
        guard code.count == 3, code.allSatisfy({ (0x30...0x39).contains($0) }) else { throw invalid() }
        i = code.endIndex
        guard i == line.endIndex || line[i] == 0x20 else { throw invalid() }
        let status = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { throw invalid() }
        let reason = String(decoding: trimmingSpaces(line[i...]), as: UTF8.self)
        return HTTPMessage(kind: kind, status: status, reason: reason)
    }

    /// `1.1`, `1.0`: digits, a dot, digits.
    private static func isVersion(_ v: ArraySlice<UInt8>) -> Bool {
        guard let dot = v.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let major = v[v.startIndex..<dot]
        let minor = v[(dot + 1)...]
        let digit: (UInt8) -> Bool = { (0x30...0x39).contains($0) }
        return !major.isEmpty && !minor.isEmpty && major.allSatisfy(digit) && minor.allSatisfy(digit)
    }

    private mutating func addHeader(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        guard var m = message else { return }
        if let first = line.first, first == 0x20 || first == 0x09 {
            // An obsolete folded line (RFC 9112 §5.2) continues the previous field's value.
            guard !m.headers.isEmpty else { throw .invalidHeader(String(decoding: line, as: UTF8.self)) }
            m.headers.appendToLastValue(String(decoding: Self.trimmingSpaces(line), as: UTF8.self))
            message = m
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw .invalidHeader(String(decoding: line, as: UTF8.self))
        }
        let name = Self.trimmingSpaces(line[line.startIndex..<colon])
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
            throw .invalidHeader(String(decoding: line, as: UTF8.self))
        }
        guard m.headers.count < limits.maximumHeaderCount else {
            throw .tooManyHeaders(limit: limits.maximumHeaderCount)
        }
        // The message is taken out while the field goes in, so that its headers are not copied.
        message = nil
        m.headers.add(
            String(decoding: name, as: UTF8.self),
            String(decoding: Self.trimmingSpaces(line[(colon + 1)...]), as: UTF8.self))
        message = m
    }

    /// `bytes` without leading and trailing spaces and tabs (HTTP's optional white space).
    private static func trimmingSpaces(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// RFC 9110 §5.6.2 token characters.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    /// Decides the body framing once the blank line after the headers has arrived.
    private mutating func startBody(into complete: inout [HTTPMessage]) throws(HTTPParseError) {
        guard let m = message else { return }
        if m.kind == .response, m.status < 200 {  // interim response: not the answer
            message = nil
            headBytes = 0
            return
        }
        if m.status == 204 || m.status == 304 {
            finishMessage(into: &complete)
            return
        }
        let encodings = m.headers.values(for: "Transfer-Encoding")
        if !encodings.isEmpty {
            let codings = encodings.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingSpaces().lowercased() }
                .filter { $0 != "identity" }
            if !codings.isEmpty {
                guard codings == ["chunked"] else {
                    throw .unsupportedTransferEncoding(codings.joined(separator: ", "))
                }
                state = .chunkSize
                return
            }
        }
        let length: Int
        let declared = m.headers.values(for: "Content-Length")
        if declared.isEmpty {
            finishMessage(into: &complete)
            return
        } else if declared.count == 1, let single = Self.decimal(declared[0]) {
            length = single  // the usual case, without the list handling below
        } else {
            let lengths = declared.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingSpaces() }
            guard let first = lengths.first, lengths.allSatisfy({ $0 == first }), let value = Self.decimal(first)
            else { throw .invalidContentLength(lengths.joined(separator: ", ")) }
            length = value
        }
        guard length <= limits.maximumBodyBytes else { throw .bodyTooLarge(limit: limits.maximumBodyBytes) }
        if length == 0 { finishMessage(into: &complete) } else { state = .body(remaining: length) }
    }

    /// A `Content-Length` value: 1 to 18 decimal digits, nothing else.
    private static func decimal(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return text.utf8.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// The size of a `chunk-size [; extensions]` line (RFC 9112 §7.1).
    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        let hex = line.prefix { $0 != UInt8(ascii: ";") }
        let digits = String(decoding: hex, as: UTF8.self).trimmingSpaces()
        guard !digits.isEmpty, digits.utf8.count <= 15, let size = Int(digits, radix: 16), size >= 0,
            digits.utf8.allSatisfy({ $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "+") })
        else { throw .invalidChunk("bad chunk size '\(String(decoding: line, as: UTF8.self))'") }
        return size
    }

    private mutating func finishMessage(into complete: inout [HTTPMessage]) {
        if let m = message { complete.append(m) }
        message = nil
        headBytes = 0
        state = .head
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
