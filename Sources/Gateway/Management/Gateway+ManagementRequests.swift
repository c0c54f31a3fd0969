import Foundation
public import HomeStore
public import JSON
import MQTT

/// The bridge requests that manage the gateway (`pair`, `unpair`): each reads its JSON object into the
/// arguments of one `Management` operation (the one the command line and the web page call too) and
/// answers with its result. They take seconds (pair-setup, a round trip to the accessory), so each runs
/// in a task of its own and answers when done: commands meanwhile are carried out as usual, and a second
/// `pair` while one runs is told it is busy.
extension Gateway {
    /// The management requests, by command name.
    public static let managementRequests: Set<String> = [
        "add_pairing", "backup", "list_pairings", "options", "pair", "refresh", "remove_pairing", "unpair",
    ]

    /// Starts the management request `command`; its answer is published when the operation ends.
    func startManagementRequest(
        _ command: String, _ request: JSONObject, transaction: JSONValue?, answer: Responder.Request
    ) {
        /// Answers a request refused before its operation starts.
        func refuse(_ reason: String) {
            logRefusal(topics.bridgeRequest(command), reason)
            let error = GatewayError.invalidPayload(reason)
            outbox.send(contentsOf: Responder.answer(.failure(error), transaction: transaction, to: answer))
        }
        guard let management = parts.management.management else {
            refuse("'\(command)' is not available: this gateway was started without pairing")
            return
        }
        switch Self.managementOperation(command, request, with: management) {
        case .failure(let error): refuse(error.description)
        case .success(let operation):
            Task { [weak self] in
                let outcome = await operation()
                await self?.finishManagementRequest(command, outcome, transaction: transaction, answer: answer)
            }
        }
    }

    /// Runs the management request `command` (one of `managementRequests`) with `request` on `management`
    /// as `bridge/request/<command>` does: the same reading of the JSON object, the same operation and the
    /// same answer `data`, for a caller other than MQTT (the web page), so the two never disagree.
    /// - Returns: the answer's `data` JSON, or the `ManagementError` whose line `bridge/response/<command>`
    ///   would carry (`.invalidRequest` for a missing field, a wrong type or an unknown command).
    public static func managementRequest(_ command: String, _ request: JSONObject, with management: Management) async
        -> Result<JSONValue, ManagementError>
    {
        switch managementOperation(command, request, with: management) {
        case .failure(let error): return .failure(error)
        case .success(let operation): return await operation()
        }
    }

    /// The operation `command` with `request` runs, or why the request is refused before anything runs.
    private static func managementOperation(_ command: String, _ request: JSONObject, with management: Management)
        -> Result<@Sendable () async -> Result<JSONValue, ManagementError>, ManagementError>
    {
        switch command {
        case "pair":
            switch pairRequest(request) {
            case .failure(let error): return .failure(error)
            case .success(let parsed): return .success({ await pair(parsed, with: management) })
            }
        case "backup":
            guard let passphrase = request["passphrase"]?.stringValue else {
                return .failure(
                    .invalidRequest(
                        #"give the passphrase that seals the archive: {"passphrase":"at least 8 characters"}"#))
            }
            return .success({ await backup(passphrase: Array(passphrase.utf8), with: management) })
        case "options":
            switch optionsRequest(request) {
            case .failure(let error): return .failure(error)
            case .success(let (accessory, change)):
                return .success({ await setOptions(accessory, change, with: management) })
            }
        case "refresh":
            guard request["accessory"] == nil || request["accessory"]?.stringValue != nil else {
                return .failure(
                    .invalidRequest(#"name the accessory: {"accessory":"<slug or id>"}, or {} for every one"#))
            }
            let accessory = request["accessory"]?.stringValue
            return .success({ await refresh(accessory, with: management) })
        case "unpair":
            guard let accessory = request["accessory"]?.stringValue else {
                return .failure(
                    .invalidRequest(#"name the accessory: {"accessory":"<slug, id or pairing name>","force":false}"#))
            }
            guard request["force"] == nil || request["force"]?.boolValue != nil else {
                return .failure(.invalidRequest(#""force" must be true or false"#))
            }
            let force = request["force"]?.boolValue ?? false
            return .success({ await unpair(accessory, force: force, with: management) })
        case "list_pairings", "add_pairing", "remove_pairing":
            return controllerPairingsOperation(command, request, with: management)
        default:
            return .failure(.invalidRequest("unknown management request '\(command)'"))
        }
    }

    /// Logs the outcome of a management request and publishes its answer.
    private func finishManagementRequest(
        _ command: String, _ outcome: Result<JSONValue, ManagementError>, transaction: JSONValue?,
        answer: Responder.Request
    ) {
        guard !isStopped else { return }
        switch outcome {
        case .success(let data): logger.notice("bridge/request/\(command): done, \(Self.loggedAnswer(command, data))")
        case .failure(let error): logger.warning("bridge/request/\(command) failed: \(error)")
        }
        let result = outcome.mapError { GatewayError.invalidPayload($0.description) }
        outbox.send(contentsOf: Responder.answer(result, transaction: transaction, to: answer))
        flush()
    }

    /// What the log shows of a management request's answer `data`: the data itself, except the archive of
    /// a `backup`, which is no line for a log (its size stands for it).
    public static func loggedAnswer(_ command: String, _ data: JSONValue) -> String {
        guard command == "backup" else { return data.description }
        return "an archive of \(data.objectValue?["bytes"]?.intValue ?? 0) bytes"
    }

    /// Runs `backup` and gives the answer's `data`: `{"archive":"<base64>","bytes":N}`, the archive that
    /// `hap2mqtt restore --from FILE` reads once decoded into FILE; never the passphrase.
    private static func backup(passphrase: [UInt8], with management: Management) async -> Result<
        JSONValue, ManagementError
    > {
        do {
            let archive = try await management.backup(passphrase: passphrase)
            let data: JSONObject = [
                "archive": .string(Data(archive).base64EncodedString()), "bytes": .int(Int64(archive.count)),
            ]
            return .success(.object(data))
        } catch {
            return .failure(error)
        }
    }

    /// `pair`: `{"host":"…","port":51826,"code":"XXX-XX-XXX","name":"…"}` or `{"id":"AA:…","code":…}`.
    /// The code is read into the request and nowhere else.
    private static func pairRequest(_ request: JSONObject) -> Result<PairRequest, ManagementError> {
        for key in ["id", "host", "code", "name"] where request[key] != nil && request[key]?.stringValue == nil {
            return .failure(.invalidRequest("\"\(key)\" must be a string"))
        }
        var port: Int?
        if let value = request["port"] {
            guard let number = value.intValue else {
                return .failure(.invalidRequest("\"port\" must be a number from 1 to 65535"))
            }
            port = number
        }
        let pair = PairRequest(
            id: request["id"]?.stringValue, host: request["host"]?.stringValue, port: port,
            code: request["code"]?.stringValue.map(EnteredSetupCode.init), name: request["name"]?.stringValue)
        do {
            try pair.validate()
        } catch {
            return .failure(error)
        }
        return .success(pair)
    }

    /// Runs `pair` and gives the answer's `data`: `{"id","name","host","port","replaced"}`, never the code.
    private static func pair(_ request: PairRequest, with management: Management) async -> Result<
        JSONValue, ManagementError
    > {
        do {
            let paired = try await management.pair(request)
            var data: JSONObject = [
                "id": .string(paired.id), "name": .string(paired.name), "host": .string(paired.host),
                "port": .int(Int64(paired.port)),
                "replaced": .bool(paired.replaced),
            ]
            if let old = paired.replacedName { data.append("replaced_name", .string(old)) }
            return .success(.object(data))
        } catch {
            return .failure(error)
        }
    }

    /// `options`: `{"accessory":"<slug or id>","options":{"name":…,"room":…,"exclude":…}}`; a key left out
    /// keeps its option, `null` removes it.
    private static func optionsRequest(_ request: JSONObject) -> Result<
        (String, AccessoryOptionsChange), ManagementError
    > {
        let shape = #"{"accessory":"<slug or id>","options":{"name":"…","room":"…","exclude":false}}"#
        guard let accessory = request["accessory"]?.stringValue, !accessory.isEmpty else {
            return .failure(.invalidRequest("name the accessory: \(shape)"))
        }
        guard let options = request["options"]?.objectValue else {
            return .failure(.invalidRequest("give the options as an object: \(shape)"))
        }
        var change = AccessoryOptionsChange()
        for option in options {
            switch (option.key, option.value) {
            case ("name", .null): change.name = .remove
            case ("name", .string(let name)): change.name = .set(name)
            case ("room", .null): change.room = .remove
            case ("room", .string(let room)): change.room = .set(room)
            case ("exclude", .null): change.exclude = .remove
            case ("exclude", .bool(let exclude)): change.exclude = .set(exclude)
            case ("name", _), ("room", _):
                return .failure(.invalidRequest("\"\(option.key)\" must be a string, or null to remove it"))
            case ("exclude", _):
                return .failure(.invalidRequest(#""exclude" must be true or false, or null to remove it"#))
            default:
                let shown = JSONString.quoted(String(option.key.prefix(40)))
                return .failure(
                    .invalidRequest(
                        "unknown option \(shown); the options are \(AccessoryOptionsChange.keys.joined(separator: ", "))"
                    ))
            }
        }
        return .success((accessory, change))
    }

    /// Runs `options` and gives the answer's `data`: `{"id","accessory","options"}`, and `"from"` (the old
    /// slug) when a new name moved the topics.
    private static func setOptions(_ accessory: String, _ change: AccessoryOptionsChange, with management: Management)
        async -> Result<JSONValue, ManagementError>
    {
        do {
            let result = try await management.setOptions(accessory, change)
            var data: JSONObject = ["id": .string(result.id.description), "accessory": .string(result.slug)]
            if let from = result.previousSlug { data.append("from", .string(from)) }
            data.append("options", result.options.jsonValue)
            return .success(.object(data))
        } catch {
            return .failure(error)
        }
    }

    /// Runs `refresh` and gives the answer's `data`: `{"accessory_servers":["hap:AA:…",…]}`.
    private static func refresh(_ accessory: String?, with management: Management) async -> Result<
        JSONValue, ManagementError
    > {
        do {
            let servers = try await management.refresh(accessory)
            return .success(.object(["accessory_servers": .array(servers.map(JSONValue.string))]))
        } catch {
            return .failure(error)
        }
    }

    /// Runs `unpair` and gives the answer's `data`: `{"id","name","outcome"}`, with `"reason"` when the
    /// accessory could not be told (`force`).
    private static func unpair(_ accessory: String, force: Bool, with management: Management) async -> Result<
        JSONValue, ManagementError
    > {
        do {
            let result = try await management.unpair(accessory, force: force)
            var data: JSONObject = ["id": .string(result.id), "name": .string(result.name)]
            switch result.outcome {
            case .removed: data.append("outcome", "removed")
            case .alreadyRemovedOnAccessory: data.append("outcome", "already_removed_on_accessory")
            case .removedLocallyOnly(let reason):
                data.append("outcome", "removed_here_only")
                data.append("reason", .string(reason))
            }
            return .success(.object(data))
        } catch {
            return .failure(error)
        }
    }
}
