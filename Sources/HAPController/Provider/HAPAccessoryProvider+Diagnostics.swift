public import HomeStore

extension HAPAccessoryProvider {
    /// Whether a session is open, the address it reaches the accessory server at (the one it connected
    /// to, else the stored or announced one), and how often it connected again after a loss
    /// (`bridge/health`); why it is offline, as a code, and what it learned of the accessory server.
    public func diagnostics() -> ProviderDiagnostics {
        ProviderDiagnostics(
            connected: client != nil, address: (link.endpoint ?? address).description,
            reconnects: max(0, machine.sessionsInstalled - 1),
            offlineReason: client != nil ? nil : machine.offlineReason,
            profile: learnedProfile)
    }
}
