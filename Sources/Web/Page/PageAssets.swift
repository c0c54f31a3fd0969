/// The web page's files, built into the binary from `web/` by `Plugins/EmbedWebPage` (so `hap2mqtt` stays
/// one file and nothing is read from the disk or fetched at run time).
enum PageAssets {
    /// One file as it is served.
    struct Asset: Sendable {
        var contentType: String
        var bytes: [UInt8]
    }

    /// The file served at `path` (`/` is `index.html`); nil for any other path.
    static func asset(at path: String) -> Asset? {
        let name = path == "/" ? "index.html" : String(path.dropFirst())
        guard path.hasPrefix("/"), let text = files[name] else { return nil }
        let type: String
        if name.hasSuffix(".html") {
            type = "text/html; charset=utf-8"
        } else if name.hasSuffix(".css") {
            type = "text/css; charset=utf-8"
        } else {
            type = "text/javascript; charset=utf-8"
        }
        return Asset(contentType: type, bytes: Array((text + "\n").utf8))
    }
}
