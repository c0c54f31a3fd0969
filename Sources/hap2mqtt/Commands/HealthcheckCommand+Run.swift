import Foundation
import SystemSupport

extension HealthcheckCommand {
    /// The verdict on the gateway of `context`'s state directory: one line, `healthy: …` or
    /// `unhealthy: …`, and the exit status (0 healthy, 1 not). A missing or damaged `health.json` is
    /// unhealthy, with the path in the line.
    func run(_ context: CommandContext, now: Date = Date()) -> (status: Int32, line: String) {
        let directory = StateDirectory(path: context.configuration.homekit.stateDirectory)
        let path = directory.url(HealthStatus.fileName).path
        let verdict: (healthy: Bool, reason: String)
        do throws(StateDirectoryError) {
            if let data = try directory.read(HealthStatus.fileName, maximumSize: 64 * 1024) {
                if let status = try? HealthStatus.decode(data) {
                    verdict = status.verdict(at: now)
                } else {
                    verdict = (false, "cannot read \(path): it is not a health file of hap2mqtt run")
                }
            } else {
                verdict = (false, "no \(path): hap2mqtt run has not started with this state directory")
            }
        } catch {
            verdict = (false, "cannot read \(error)")
        }
        return (verdict.healthy ? 0 : 1, "\(verdict.healthy ? "healthy" : "unhealthy"): \(verdict.reason)\n")
    }
}

extension HealthcheckCommand {
    /// Prints the verdict; the status is 0 when healthy.
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        let (status, line) = run(context)
        StandardStream.write(line, to: STDOUT_FILENO)
        return status
    }
}
