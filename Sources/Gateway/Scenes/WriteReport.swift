import HomeModel
import HomeStore
import JSON

/// The one answer to a recall or a group's `/set` (docs/scenes-and-groups.md "Recall"): every write's
/// outcome by `<accessory>/<service>/<characteristic>`, what was missing, and one error text naming every
/// failure.
struct WriteReport: Sendable {
    /// `{"<accessory>":{"<service>":{"<characteristic>":{"status":"ok","value":…}}}}`.
    var results = JSONObject()
    /// The `<accessory>/<service>/<characteristic>` of each value that could not be written because its
    /// accessory or characteristic is gone.
    var missing: [String] = []
    /// `<label>: <why>` for each failed write, then one line for the missing.
    var failures: [String] = []

    /// The report of `outcomes`, each named by `label` (`accessory`, `service`, `characteristic`), with
    /// `missing` as given.
    init(
        _ outcomes: [CharacteristicAddress: HomeStore.WriteResult], missing: [String],
        label: (CharacteristicAddress) -> (accessory: String, service: String, characteristic: String)
    ) {
        self.missing = missing
        var byAccessory: [(String, [(String, [(String, JSONValue)])])] = []
        for (address, result) in outcomes.sorted(by: { $0.key < $1.key }) {
            let (accessory, service, characteristic) = label(address)
            let answer: CommandResult
            switch result {
            case .success(let value): answer = .success(value)
            case .failure(let error):
                failures.append("\(accessory)/\(service)/\(characteristic): \(error)")
                answer = .failure(error)
            }
            if byAccessory.last?.0 != accessory { byAccessory.append((accessory, [])) }
            if byAccessory[byAccessory.count - 1].1.last?.0 != service {
                byAccessory[byAccessory.count - 1].1.append((service, []))
            }
            let last = byAccessory.count - 1
            byAccessory[last].1[byAccessory[last].1.count - 1].1.append((characteristic, answer.jsonValue))
        }
        for (accessory, services) in byAccessory {
            var perService = JSONObject()
            for (service, values) in services {
                perService.append(service, .object(JSONObject(values.map { .init(key: $0.0, value: $0.1) })))
            }
            results.append(accessory, .object(perService))
        }
        if !missing.isEmpty { failures.append("gone since stored, not written: \(missing.joined(separator: ", "))") }
    }

    /// Whether every write succeeded and nothing was missing.
    var isSuccess: Bool { failures.isEmpty }

    /// `{"results":…,"missing":[…]}` and the fields given in `head` before them.
    func data(_ head: JSONObject) -> JSONValue {
        var data = head
        data.append("results", .object(results))
        data.append("missing", .array(missing.map(JSONValue.string)))
        return .object(data)
    }

    /// The error text: every failure, `; `-separated; nil when all went well.
    var error: String? { failures.isEmpty ? nil : failures.joined(separator: "; ") }
}
