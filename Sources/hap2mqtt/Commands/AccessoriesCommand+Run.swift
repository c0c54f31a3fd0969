import HAPController
import HomeModel
import HomeStore
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension AccessoriesCommand {
    /// Connects to every paired accessory server in turn and renders its accessories with their live
    /// values (`AccessoryTree`). A server that cannot be reached is reported as a failure and the others
    /// are still listed.
    func run(_ context: CommandContext, loggers: Loggers) async -> (output: String, failures: [CommandFailure]) {
        let controller = HAPController(
            stateDirectory: StateDirectory(path: context.configuration.homekit.stateDirectory), logger: loggers.hap)
        let pairings = await controller.pairings()
        guard !pairings.isEmpty else {
            return ("no paired accessories: pair one with hap2mqtt pair --host H --port P\n", [])
        }
        var output = ""
        var failures: [CommandFailure] = []
        for pairing in pairings {
            do {
                output += (output.isEmpty ? "" : "\n") + (try await Self.tree(of: pairing, controller: controller))
            } catch {
                failures.append(CommandFailure(error, pairing: pairing.displayName))
            }
        }
        return (output, failures)
    }

    /// One server's tree: `GET /accessories`, then a read of every readable characteristic, so that the
    /// values are the accessory's at this moment.
    private static func tree(of pairing: Pairing, controller: HAPController) async throws(HAPControllerError) -> String
    {
        let client = try await controller.connect(to: pairing)
        let fetched: Result<(HAPAccessoryList, [HAPCharacteristicID: HAPCharacteristicResult]), HAPConnectionError>
        do {
            let list = try await client.accessories()
            let readable = list.accessories.flatMap { accessory in
                accessory.allCharacteristics.filter(\.isReadable).map {
                    HAPCharacteristicID(aid: accessory.aid, iid: $0.iid)
                }
            }
            fetched = .success((list, try await client.read(readable)))
        } catch {
            fetched = .failure(error)
        }
        await client.connection.close()
        let (list, results) = try fetched.mapError(HAPControllerError.connection).get()
        var failures: [HAPCharacteristicID: HAPStatus] = [:]
        let accessories = list.accessories.map { accessory in
            var accessory = accessory
            for s in accessory.services.indices {
                for c in accessory.services[s].characteristics.indices {
                    let characteristic = accessory.services[s].characteristics[c]
                    guard let result = results[HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)] else {
                        continue
                    }
                    if result.status.isSuccess {
                        accessory.services[s].characteristics[c].value = try? result.value(
                            format: characteristic.format)
                    } else {
                        failures[result.id] = result.status
                    }
                }
            }
            return accessory
        }
        return AccessoryTree.render(pairing: pairing, accessories: accessories, failures: failures)
    }
}

extension AccessoriesCommand {
    /// Prints the listing, and each accessory server that could not be read as one line on standard error.
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        let (output, failures) = await run(context, loggers: loggers)
        StandardStream.write(output, to: STDOUT_FILENO)
        for failure in failures { StandardStream.write("hap2mqtt: \(failure)\n", to: STDERR_FILENO) }
        return failures.isEmpty ? 0 : CommandFailure.failureStatus
    }
}
