import HomeModel
import HomeStore
import JSON
import SystemSupport

/// The accessory server's learned profile at work (`AccessoryServerProfile`, docs/DESIGN.md "Availability
/// and recovery"): reads in batches it takes, polling where events do not come, the keep-alive below its
/// idle limit.
extension HAPAccessoryProvider {
    /// Loads the stored profile; a damaged one is ignored with a warning (and replaced at the next change).
    func loadProfile() {
        do {
            learning.profile = try context.profileFile.load()
        } catch {
            logger.warning("ignored the learned profile of \(displayName): \(error)")
        }
        guard !learning.profile.isEmpty else { return }
        logger.info("\(displayName) has a learned profile: \(learning.profile.json)")
    }

    /// Takes what was observed; a change is logged once and saved.
    func learn(_ observation: AccessoryServerProfile.Observation) {
        guard let change = learning.profile.learn(observation) else { return }
        switch change {
        case .pollInstead(let id):
            index?.pollInstead(of: id)
            logger.warning(
                "\(displayName) sends no events for characteristic \(id): its value changed without one; "
                    + "polling it every \(CharacteristicValue.format(settings.pollInterval.inSeconds)) s instead")
        case .readBatch(let size):
            logger.warning(
                "\(displayName) answered a read with \"out of resources\" (HAP status -70407); "
                    + "reading at most \(size) characteristics at once from now on")
        case .idleLimit(let quiet):
            let keepalive = learning.profile.keepalive(configured: settings.keepaliveInterval)
            guard keepalive < settings.keepaliveInterval else { break }
            logger.info(
                "\(displayName) ended a connection quiet for \(Self.tenths(quiet)) s; "
                    + "keeping its connection alive every \(Self.tenths(keepalive)) s")
        }
        do {
            try context.profileFile.save(learning.profile)
        } catch {
            logger.warning("cannot save the learned profile of \(displayName): \(error)")
        }
    }

    /// A new session's (or re-fetch's) index: characteristics whose events did not come are polled, and
    /// the others with events are verified from the values just read.
    func applyProfile(
        to synced: inout AccessoryIndex, values: [HAPCharacteristicID: HAPCharacteristicResult]
    ) {
        for id in learning.profile.pollInsteadOfEvents { synced.pollInstead(of: id) }
        var verification = EventVerification(watching: synced.caughtUp)
        for (id, result) in values where result.status.isSuccess {
            verification.read(id, result.value, at: context.clock.now)
        }
        learning.verification = verification
    }

    /// Reads `ids` in batches of the learned size: a batch refused as a whole (`refusedAsAWhole(_:)`) is
    /// read again in smaller ones, and the size is remembered.
    /// - Throws: what the reads throw.
    func readInBatches(_ ids: [HAPCharacteristicID], on client: HAPClient) async throws(HAPConnectionError)
        -> [HAPCharacteristicID: HAPCharacteristicResult]
    {
        var results: [HAPCharacteristicID: HAPCharacteristicResult] = [:]
        var pending = ids[...]
        while !pending.isEmpty {
            let batch = Array(pending.prefix(learning.profile.readBatch(standard: HAPClient.maximumReadBatch)))
            let answers = try await client.read(batch)
            if batch.count > 1, Self.refusedAsAWhole(answers) {
                let before = learning.profile.readBatchLimit
                learn(.outOfResources(batch: batch.count))
                if learning.profile.readBatchLimit != before { continue }
            }
            results.merge(answers) { _, new in new }
            pending = pending.dropFirst(batch.count)
        }
        let now = context.clock.now
        for (id, result) in results where result.status.isSuccess {
            learning.verification.read(id, result.value, at: now)
        }
        return results
    }

    /// Whether a read was refused for its size: some answers are `-70407` (out of resources) and none is
    /// a value. One characteristic that answers `-70407` among values is its own trouble, and must not make
    /// every later read a read of one.
    static func refusedAsAWhole(_ answers: [HAPCharacteristicID: HAPCharacteristicResult]) -> Bool {
        answers.values.contains { $0.status == .outOfResources } && !answers.values.contains { $0.status.isSuccess }
    }

    /// Characteristics found changed without an event and not cleared by one since: polled from now on.
    func judgeEvents() {
        for id in learning.verification.takeVerdicts(before: context.clock.now - EventVerification.eventWait) {
            learn(.eventMissing(id))
        }
    }

    /// What `bridge/health` shows of the profile.
    var learnedProfile: LearnedProfile {
        let profile = learning.profile
        return LearnedProfile(
            polledInsteadOfEvents: profile.pollInsteadOfEvents.sorted().map(\.description),
            readBatchLimit: profile.readBatchLimit, idleLimit: profile.idleLimit.observed,
            keepalive: profile.keepalive(configured: settings.keepaliveInterval))
    }

    private static func tenths(_ duration: Duration) -> String {
        CharacteristicValue.format((duration.inSeconds * 10).rounded() / 10)
    }
}
