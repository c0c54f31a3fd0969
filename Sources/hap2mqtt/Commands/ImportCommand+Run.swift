import Foundation
import HAPController
import JSON
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ImportCommand {
    /// The largest file read: Home Assistant's config entries of a large home are some hundred KiB.
    static let maximumFileSize = 32 << 20

    /// Takes over every IP pairing of the source (`HAPController.takeOver`), reading the source only.
    /// - Returns: one line per pairing for standard output (what was done and what to do in the other
    ///   controller next), and the lines of the pairings that could not be imported, for standard error.
    /// - Throws: `CommandFailure` when the source cannot be read or is not what it should be, or holds no
    ///   pairing.
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> (
        output: String, failures: [String]
    ) {
        let (file, pairings) = try read()
        guard !pairings.isEmpty else {
            throw CommandFailure(message: "nothing to import: \(file) holds no HomeKit pairing")
        }
        let controller = HAPController(
            stateDirectory: StateDirectory(path: context.configuration.homekit.stateDirectory), logger: loggers.hap)
        var lines: [String] = []
        var failures: [String] = []
        for foreign in pairings {
            let label = foreign.name.jsonQuoted + (foreign.accessoryPairingID.map { " (\($0))" } ?? "")
            guard case .ip(let pairing) = foreign.kind else {
                if case .skipped(let reason) = foreign.kind { lines.append("skipped \(label): \(reason)") }
                continue
            }
            do {
                switch try await controller.takeOver(pairing) {
                case .ownPairing(let saved):
                    lines.append(
                        "imported \(label) at \(saved.host):\(saved.port) with hap2mqtt's own pairing: \(ownAdvice)")
                case .sharedIdentity(let saved, let reason):
                    lines.append(
                        "imported \(label) at \(saved.host):\(saved.port) sharing \(other)'s controller identity "
                            + "(hap2mqtt's own pairing could not be added: \(reason)): \(sharedAdvice)")
                case .alreadyHere(let saved):
                    lines.append("\(label) is paired here already as \(saved.displayName.jsonQuoted); nothing changed")
                case .conflicting(let existing):
                    failures.append(
                        "cannot import \(label): hap2mqtt holds another pairing with this accessory, "
                            + "\(existing.displayName.jsonQuoted); unpair it first")
                }
            } catch {
                failures.append("cannot import \(label): \(error)")
            }
        }
        return (lines.map { $0 + "\n" }.joined(), failures)
    }

    /// Prints the lines on standard output and each pairing that could not be imported as one line on
    /// standard error; status 1 when there was one, or when the source could not be read.
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        let (output, failures): (String, [String])
        do {
            (output, failures) = try await run(context, loggers: loggers)
        } catch {
            StandardStream.write("hap2mqtt: \(error)\n", to: STDERR_FILENO)
            return error.status
        }
        StandardStream.write(output, to: STDOUT_FILENO)
        for failure in failures { StandardStream.write("hap2mqtt: \(failure)\n", to: STDERR_FILENO) }
        return failures.isEmpty ? 0 : CommandFailure.failureStatus
    }

    /// The other controller, as the lines name it.
    private var other: String {
        switch source {
        case .homeAssistant: return "Home Assistant"
        case .aiohomekit: return "aiohomekit"
        }
    }

    /// What to do in the other controller once hap2mqtt has a pairing of its own.
    private var ownAdvice: String {
        switch source {
        case .homeAssistant:
            return "in Home Assistant, delete its HomeKit Controller entry (that removes only Home Assistant's "
                + "pairing), or keep it: both then reach the accessory, each with its own pairing"
        case .aiohomekit:
            return "aiohomekit's remove_pairing of it now removes only aiohomekit's pairing; or keep it: both then "
                + "reach the accessory, each with its own pairing"
        }
    }

    /// What to do in the other controller while both share its identity.
    private var sharedAdvice: String {
        switch source {
        case .homeAssistant:
            return "keep its entry in Home Assistant (disable it to stop Home Assistant using the accessory): "
                + "deleting it would unpair hap2mqtt too; run hap2mqtt import again once the accessory is reachable"
        case .aiohomekit:
            return "never remove_pairing it in aiohomekit: that would unpair hap2mqtt too; run hap2mqtt import "
                + "again once the accessory is reachable"
        }
    }

    /// The source's path and its pairings. Opens it read-only.
    private func read() throws(CommandFailure) -> (String, [ForeignPairing]) {
        let file: String
        switch source {
        case .homeAssistant(let path):
            var isDirectory: ObjCBool = false
            let folder =
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            file =
                folder ? URL(fileURLWithPath: path).appendingPathComponent(".storage/core.config_entries").path : path
        case .aiohomekit(let path):
            file = path
        }
        let json: JSONValue
        do {
            json = try JSONValue(
                parsing: Data(try SystemCall.readFile(atPath: file, maximumSize: Self.maximumFileSize)))
        } catch let error as SystemCallError {
            throw CommandFailure(message: "cannot read \(file): \(error.reason)")
        } catch {
            throw CommandFailure(message: "cannot import from \(file): it is not JSON")
        }
        do {
            switch source {
            case .homeAssistant: return (file, try ForeignPairing.homeAssistantEntries(json))
            case .aiohomekit: return (file, try ForeignPairing.aiohomekitFile(json))
            }
        } catch {
            var what = "Home Assistant's core.config_entries"
            if case .aiohomekit = source { what = "aiohomekit's pairing file" }
            throw CommandFailure(message: "cannot import from \(file): it is not \(what) (\(error))")
        }
    }
}
