import HomeModel
import HomeStore

/// Settling writes that went out without an answer (docs/DESIGN.md "Writes"): once a later session is
/// synced, the write's own connection is gone (reset, so nothing of it can still arrive), and what the
/// accessory holds now says whether it carried the write out.
extension HAPAccessoryProvider {
    /// Reads back, on the live session's `client`, the characteristics whose writes are unconfirmed from an
    /// earlier session, and reports each value (`.values` from a read, then `.writesSettled`). A read that
    /// fails leaves them for the next session; a characteristic the accessory no longer has is dropped.
    func readBackUnconfirmedWrites(on client: HAPClient) async {
        guard let index else { return }
        let due = unconfirmed.due(on: machine.sessionsInstalled)
        guard !due.isEmpty else { return }
        _ = unconfirmed.take(due.filter { !index.contains($0) })
        let ids = due.filter { index.contains($0) }
        guard !ids.isEmpty else { return }
        let results: [HAPCharacteristicID: HAPCharacteristicResult]
        do {
            results = try await client.read(ids)
        } catch {
            logger.debug("reading back unconfirmed writes failed: \(error)")
            return
        }
        var updates: [ValueUpdate] = []
        var readBacks: [WriteReadBack] = []
        for (id, entry) in unconfirmed.take(ids.filter { results[$0]?.status.isSuccess == true }) {
            guard case .success(let value) = index.decoded(results[id]?.value, for: id) else { continue }
            updates.append(ValueUpdate(address: entry.address, value: value, source: .read))
            readBacks.append(WriteReadBack(address: entry.address, written: entry.written, value: value))
        }
        if !updates.isEmpty { emit(.values(updates)) }
        if !readBacks.isEmpty { emit(.writesSettled(readBacks)) }
        for readBack in readBacks {
            logger.info(
                "read back \(readBack.address) after a write without an answer: \(readBack.value.map { "\($0)" } ?? "no value") (written: \(readBack.written))"
            )
        }
    }
}
