internal import Foundation

/// The form that asks for the token, answered with 401 to every page request that has none. It is the
/// only page served without the token, so it is self-contained (its style inline, allowed by its own
/// Content-Security-Policy) and shows nothing of the home. The token is posted, never put in a URL.
enum LoginPage {
    static func response(status: Int, problem: String?) -> HTTPResponse {
        let message = problem.map { #"<p class="problem" role="alert">\#(escape($0))</p>"# } ?? ""
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>hap2mqtt: sign in</title>
            <style>
            body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2430;display:flex;justify-content:center;padding:3rem 1rem}
            form{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 4px #0002;max-width:22rem;width:100%}
            h1{font-size:1.2rem;margin:0 0 1rem}label{display:block;margin-bottom:.4rem}
            input,button{font:inherit;width:100%;box-sizing:border-box;padding:.6rem;margin-bottom:.8rem;border-radius:8px;border:1px solid #bbc}
            button{background:#2f6fdf;color:#fff;border:0;cursor:pointer}.problem{color:#b3261e}
            </style></head>
            <body><form method="post" action="/login">
            <h1>hap2mqtt</h1>\(message)
            <label for="token">Token (frontend.auth_token)</label>
            <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
            <button id="sign-in" type="submit">Sign in</button>
            </form></body></html>
            """
        return HTTPResponse(
            status: status, contentType: "text/html; charset=utf-8", body: Array(html.utf8),
            headers: [
                (
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
                ),
                ("Cache-Control", "no-store"),
            ])
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
