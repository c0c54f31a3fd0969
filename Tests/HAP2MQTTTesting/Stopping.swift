/// Something a test starts and must stop again: a harness, a broker, a process.
public protocol Stoppable: Sendable {
    /// Stops everything it started; safe to call when parts never started.
    func stop() async
}

/// Runs `body` with `resource` and stops the resource afterwards, also when `body` throws, so that a
/// failed expectation never leaves a process, a broker or a task behind.
public func withStopping<Resource: Stoppable, Result>(
    _ resource: Resource, _ body: (Resource) async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await resource.stop()
        throw error
    }
    await resource.stop()
    return result
}
