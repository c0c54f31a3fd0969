import Foundation
import PackagePlugin

/// Gives the `hap2mqtt` target the git commit it is built from, as `BuildCommit.swift` with
/// `let buildCommit = "…"`, so that `hap2mqtt --version` names it.
///
/// A prebuild command, run before every build and without network: `scripts/lib/build-commit` asks git
/// in the package's directory, or takes `HAP2MQTT_COMMIT` from the environment when it is set (the
/// Dockerfile's build argument: its build context has no `.git`), else writes "unknown". The script
/// rewrites the file only when the commit changed, so a build with nothing new compiles nothing again.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        var environment: [String: String] = [:]
        if let commit = ProcessInfo.processInfo.environment["HAP2MQTT_COMMIT"] {
            environment["HAP2MQTT_COMMIT"] = commit
        }
        return [
            .prebuildCommand(
                displayName: "Recording the commit hap2mqtt is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    context.package.directoryURL.appending(path: "scripts/lib/build-commit").path,
                    context.package.directoryURL.path,
                    output.appending(path: "BuildCommit.swift").path,
                ],
                environment: environment,
                outputFilesDirectory: output)
        ]
    }
}
