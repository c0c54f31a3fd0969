import Foundation
import PackagePlugin

/// Builds the web page's files (`web/`: plain HTML, CSS and JavaScript) into the `Web` target as
/// `PageAssets+Files.swift`, so that `hap2mqtt` serves them from the binary and the install stays one
/// file. A build command with the files as its inputs: SwiftPM runs `scripts/lib/embed-web` again only
/// when one of them changed.
@main
struct EmbedWebPagePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let web = context.package.directoryURL.appending(path: "web")
        let files = try FileManager.default.contentsOfDirectory(atPath: web.path)
            .filter { name in [".html", ".css", ".js"].contains { name.hasSuffix($0) } }
            .sorted()
            .map { web.appending(path: $0) }
        let script = context.package.directoryURL.appending(path: "scripts/lib/embed-web")
        let output = context.pluginWorkDirectoryURL.appending(path: "PageAssets+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding the web page from web/ in the Web module",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, output.path] + files.map(\.path),
                inputFiles: [script] + files,
                outputFiles: [output])
        ]
    }
}
