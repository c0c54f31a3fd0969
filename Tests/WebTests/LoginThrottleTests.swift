import Testing

@testable import Web

/// The throttle's arithmetic with a clock the test moves: the per-address wait, the overall limit that
/// many addresses share, and the report at most once a minute.
@Suite("login throttle")
struct LoginThrottleTests {
    let start = ContinuousClock.now

    @Test("an address waits 1, 2, 4 … s after its third wrong token, at most 60 s; the right token clears it")
    func perAddress() {
        var throttle = LoginThrottle()
        var now = start
        for _ in 0..<3 {
            #expect(throttle.admit("10.0.0.9", at: now) == nil)
            throttle.failed("10.0.0.9", at: now)
        }
        #expect(throttle.admit("10.0.0.9", at: now) == 1)
        #expect(throttle.admit("10.0.0.8", at: now) == nil)
        now += .seconds(1)
        #expect(throttle.admit("10.0.0.9", at: now) == nil)
        throttle.failed("10.0.0.9", at: now)
        #expect(throttle.admit("10.0.0.9", at: now) == 2)
        for _ in 0..<10 {
            now += .seconds(61)
            throttle.failed("10.0.0.9", at: now)
        }
        #expect(throttle.admit("10.0.0.9", at: now) == 60)
        now += .seconds(60)
        throttle.succeeded("10.0.0.9")
        throttle.failed("10.0.0.9", at: now)
        #expect(throttle.admit("10.0.0.9", at: now) == nil)
    }

    @Test("past 30 wrong tokens a minute from many addresses, every address that has not signed in waits")
    func overall() {
        var throttle = LoginThrottle()
        throttle.succeeded("192.168.1.20")
        for n in 0..<30 { throttle.failed("10.0.1.\(n)", at: start) }
        #expect(throttle.admit("10.0.2.1", at: start + .seconds(10)) == 50)
        #expect(throttle.admit("192.168.1.20", at: start + .seconds(10)) == nil)
        #expect(throttle.admit("10.0.2.1", at: start + .seconds(60)) == nil)
    }

    @Test("the report comes at most once a minute, with the counts by address, and starts again after")
    func report() {
        var throttle = LoginThrottle()
        #expect(throttle.report(at: start) == nil)
        for _ in 0..<3 { throttle.failed("10.0.0.9", at: start) }
        for _ in 0..<3 { #expect(throttle.admit("10.0.0.9", at: start) == 1) }
        throttle.failed("10.0.0.7", at: start)
        #expect(
            throttle.report(at: start)
                == "web page: login tries refused (a wrong token, or too soon after one): 10.0.0.9 (3 wrong, 3 too soon; next try in 1 s), 10.0.0.7 (1 wrong); 7 in all"
        )
        throttle.failed("10.0.0.7", at: start + .seconds(5))
        #expect(throttle.report(at: start + .seconds(30)) == nil)
        #expect(
            throttle.report(at: start + .seconds(60))
                == "web page: login tries refused (a wrong token, or too soon after one): 10.0.0.7 (1 wrong); 1 in all")
        #expect(throttle.report(at: start + .seconds(200)) == nil)
    }
}

/// The guard with the throttle, at instants the test chooses: during a wait neither the form nor a bearer
/// header has its token looked at, and a session opened before is not held.
@Suite("access guard")
struct AccessGuardTests {
    static let token = "correct-horse-battery-staple-4711"

    @Test("during a wait the right token is refused like a wrong one; a session from before still works")
    func waitHidesTheAnswer() throws {
        let access = AccessGuard(token: Self.token, host: "127.0.0.1")
        let start = ContinuousClock.now
        let session = try access.login(with: Self.token, from: "10.0.0.2", at: start).get()
        for _ in 0..<3 { #expect(access.login(with: "guess", from: "10.0.0.9", at: start) == .failure(.refused)) }
        #expect(access.login(with: Self.token, from: "10.0.0.9", at: start) == .failure(.wait(seconds: 1)))
        let bearer = HTTPRequest(
            method: "GET", path: "/api/accessories", headers: ["Authorization": "Bearer \(Self.token)"],
            client: "10.0.0.9")
        #expect(access.admits(bearer, at: start) == .wait(seconds: 1))
        let cookie = HTTPRequest(
            method: "GET", path: "/", headers: ["Cookie": "\(AccessGuard.cookieName)=\(session)"], client: "10.0.0.9")
        #expect(access.admits(cookie, at: start) == .admitted)
        #expect(access.admits(bearer, at: start + .seconds(1)) == .admitted)
    }
}
