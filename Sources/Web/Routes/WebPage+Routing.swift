import Gateway
import HomeModel
import JSON

extension WebPage {
    /// Answers one request: the login form's post and the log-out, then the token check, then the page's
    /// files and the API. Anything else is 404; nothing is ever read from the disk, so no path reaches a
    /// file.
    func answer(_ request: HTTPRequest) async -> HTTPResponse {
        let path = request.path
        if path == "/login" {
            guard request.method == "POST" else { return LoginPage.response(status: 401, problem: nil) }
            return login(request)
        }
        if path == "/logout" {
            guard request.method == "POST" else { return .json(status: 405, error: "sign out with POST /logout") }
            access.logout(request)
            return HTTPResponse(
                status: 303, contentType: "text/plain", body: [],
                headers: [
                    ("Location", "/"),
                    ("Set-Cookie", "\(AccessGuard.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"),
                ])
        }
        let verdict = access.admits(request)
        if case .wait(let seconds) = verdict {
            reportRefusals()
            return .json(status: 429, error: Self.waitText(seconds)).retrying(after: seconds)
        }
        guard verdict == .admitted else {
            if request.headers["authorization"]?.hasPrefix("Bearer ") == true { reportRefusals() }
            guard access.requiresToken else {
                return .json(status: 403, error: "use the address the page listens on, not another name for it")
            }
            if path.hasPrefix("/api/") {
                return .json(status: 401, error: "a valid token is required (Authorization: Bearer <token>)")
            }
            return LoginPage.response(status: 401, problem: nil)
        }
        if path.hasPrefix("/api/") {
            return await api(request, Array(path.split(separator: "/").dropFirst().map(String.init)))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .json(status: 405, error: "\(request.method) is not allowed here")
        }
        if let asset = PageAssets.asset(at: path) {
            return HTTPResponse(
                status: 200, contentType: asset.contentType, body: asset.bytes, headers: [("Cache-Control", "no-cache")]
            )
        }
        return .json(status: 404, error: "no page at \(path)")
    }

    /// The login form's post (`token=…`, form-encoded): a session cookie and a redirect to the page, or
    /// the form again with 401.
    private func login(_ request: HTTPRequest) -> HTTPResponse {
        let fields = FormFields(request.body)
        guard access.requiresToken else {
            return HTTPResponse(status: 303, contentType: "text/plain", body: [], headers: [("Location", "/")])
        }
        let session: String
        switch access.login(with: fields["token"] ?? "", from: request.client) {
        case .success(let opened): session = opened
        case .failure(.refused):
            reportRefusals()
            return LoginPage.response(status: 401, problem: "That token is not right.")
        case .failure(.wait(let seconds)):
            reportRefusals()
            return LoginPage.response(status: 429, problem: Self.waitText(seconds)).retrying(after: seconds)
        }
        return HTTPResponse(
            status: 303, contentType: "text/plain", body: [],
            headers: [
                ("Location", "/"),
                ("Set-Cookie", "\(AccessGuard.cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict"),
            ])
    }

    /// What a client that must wait is told.
    static func waitText(_ seconds: Int) -> String {
        "too many wrong tokens from this address; try again in \(seconds) s"
    }

    /// Logs the throttle's counts when a report is due (at most once a minute).
    func reportRefusals() {
        if let line = access.report() { logger.warning("\(line)") }
    }

    /// `/api/…`: `parts` are the path's segments after `api`.
    private func api(_ request: HTTPRequest, _ parts: [String]) async -> HTTPResponse {
        switch (request.method, parts) {
        case ("GET", ["accessories"]): return await accessoryList()
        case ("GET", ["events"]):
            guard let stream = hub.open() else {
                return .json(status: 503, error: "too many event streams are open; close another page")
            }
            return HTTPResponse(events: stream)
        case ("GET", ["log"]): return .json("[\(feed.recent.map(\.json).joined(separator: ","))]")
        case ("GET", ["discovered"]): return await discoveredList()
        case ("GET", ["health"]): return await health()
        case ("GET", ["catalog"]):
            return HTTPResponse(
                status: 200, contentType: "application/json; charset=utf-8", body: Array(Self.catalogJSON.utf8),
                headers: [("Cache-Control", "no-cache")])
        case ("GET", ["excluded"]): return await excludedList()
        case ("GET", ["session"]):
            // Whether the page shows "Sign out": only with a token is there a session to end.
            return .json(JSONValue.object(["token_required": .bool(access.requiresToken)]).description)
        case ("POST", _):
            guard Self.isJSON(request.headers["content-type"]) else {
                // A form on another site can post text or a form, never JSON without the page's permission.
                return .json(status: 415, error: "send the request as application/json")
            }
            guard let body = (try? JSONValue(parsing: request.body))?.objectValue else {
                return .json(status: 400, error: "the body must be a JSON object")
            }
            switch parts {
            case _ where parts.count == 4 && parts[0] == "accessories" && parts[2] == "characteristics":
                return await write(accessory: parts[1], iid: parts[3], body)
            case _ where parts.count == 3 && parts[0] == "bridge" && parts[1] == "request":
                if Gateway.managementRequests.contains(parts[2]) { return await managementRequest(parts[2], body) }
                return await bridgeRequest(parts[2], request.body)
            default: break
            }
        case ("GET", _) where parts.count == 2 && parts[0] == "accessories":
            return await accessoryPage(parts[1])
        default: break
        }
        return .json(status: 404, error: "no API at \(request.method) \(request.path)")
    }

    /// Whether a `Content-Type` is `application/json`, with parameters (`; charset=utf-8`) or without
    /// (RFC 9110 §8.3.1: the media type is case-insensitive and ends at `;`); not `application/jsonx` nor
    /// `application/json-seq`.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// `POST /api/bridge/request/<command>`: the MQTT bridge request of that name, answered with its
    /// envelope (`{"status":"ok","data":…}` or `{"status":"error","error":…}`); 422 when it failed.
    private func bridgeRequest(_ command: String, _ body: [UInt8]) async -> HTTPResponse {
        switch await gateway.bridgeRequest(command, payload: body) {
        case .success(let data): return .json(JSONValue.object(["status": "ok", "data": data]).description)
        case .failure(let error): return .json(status: 422, error: error.description)
        }
    }
}

/// The fields of an `application/x-www-form-urlencoded` body (WHATWG URL, "application/x-www-form-urlencoded
/// parsing").
struct FormFields {
    private var fields: [String: String] = [:]

    init(_ body: [UInt8]) {
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { Self.decode($0) }
            if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
    }

    subscript(name: String) -> String? { fields[name] }

    private static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
