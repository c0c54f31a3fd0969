#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the command of `context` and returns the exit status. Logging is set up before it is called.
///
/// The commands are wired by the program's lead (gateway, HAP controller, MQTT client); until then
/// each one says so on standard error and exits with status 1.
func dispatch(_ context: CommandContext) async -> Int32 {
    if case .run = context.command { return await RunCommandRunner.run(context) }
    StandardStream.write("hap2mqtt: \(context.command.name) is not wired yet\n", to: STDERR_FILENO)
    return 1
}
