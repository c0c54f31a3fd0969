import HomeStore

extension ProviderConnectionStateMachine {
    /// Why there is no live session, as a code (`OfflineReason`); nil while one runs.
    var offlineReason: OfflineReason? {
        switch state {
        case .live: return nil
        case .idle: return .notConnectedYet
        case .unusable: return .pairingUnreadable
        case .rejected: return .pairingRejected
        case .waitingForIdentity: return .identityUnusable
        case .stopped: return .stopped
        case .connecting, .backingOff:
            if failuresInARow == 0 { return sessionsInstalled == 0 ? .notConnectedYet : .connectionLost }
            return lastAttemptUnreached ? .unreachable : .connectionFailed
        }
    }
}
