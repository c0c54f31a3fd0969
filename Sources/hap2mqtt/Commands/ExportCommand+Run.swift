import Foundation
import HAPController
import JSON
import SystemSupport

extension ExportCommand {
    /// Writes aiohomekit's pairing file for every pairing, atomically with mode 0600, to a path that must
    /// not exist (a pairing file of aiohomekit or Home Assistant is never overwritten); one line per
    /// pairing, for standard output.
    /// - Throws: `CommandFailure` when there is no identity or no pairing, a pairing file is damaged, or
    ///   the file exists or cannot be written.
    func run(_ context: CommandContext) throws(CommandFailure) -> String {
        let store = PairingStore(directory: StateDirectory(path: context.configuration.homekit.stateDirectory))
        let loaded: ControllerIdentity?
        do {
            loaded = try store.loadIdentity()
        } catch {
            throw CommandFailure(message: "cannot export: \(error)")
        }
        guard let identity = loaded else {
            throw CommandFailure(message: "nothing to export: \(store.directory.path) holds no pairing")
        }
        let contents = store.loadPairings()
        if let problem = contents.problems.first {
            throw CommandFailure(message: "cannot export: \(problem); fix or remove it, then export again")
        }
        guard !contents.pairings.isEmpty else {
            throw CommandFailure(message: "nothing to export: \(store.directory.path) holds no pairing")
        }
        guard !FileManager.default.fileExists(atPath: aiohomekit) else {
            throw CommandFailure(message: "\(aiohomekit) exists already: give a new file (it is never overwritten)")
        }
        let file = AiohomekitPairingData.file(for: contents.pairings, identity: identity)
        let url = URL(fileURLWithPath: aiohomekit)
        do {
            try StateDirectory(path: url.deletingLastPathComponent().path).write(
                Data(file.encoded(sortingKeys: true) + [UInt8(ascii: "\n")]), to: url.lastPathComponent)
        } catch {
            throw CommandFailure(message: "cannot write the pairing file: \(error)")
        }
        var lines = contents.pairings.map { pairing in
            "exported \(pairing.displayName.jsonQuoted) (\(pairing.accessoryPairingID)) at \(pairing.host):\(pairing.port)"
        }
        lines.append(
            "wrote \(aiohomekit) for aiohomekit (Controller.load_data); it holds this controller's keys: keep it private, "
                + "and stop hap2mqtt run for good before using it (never hap2mqtt unpair: that unpairs both)")
        return lines.joined(separator: "\n") + "\n"
    }

    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try run(context) }
    }
}
