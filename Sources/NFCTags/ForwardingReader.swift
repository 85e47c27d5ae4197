/// A reader that wraps another and passes on everything it does not change: ``TracingReader``
/// (records commands) and ``PlanningReader`` (holds writes back) state only what they do
/// differently, and take the rest of the seam — presence, removal, listing, selection, closing —
/// from here, so that a requirement added to ``NFCReader`` is forwarded in one place.
public protocol ForwardingReader: NFCReader {
    /// The reader underneath, which does whatever the wrapper does not change.
    nonisolated var base: any NFCReader { get }
}

extension ForwardingReader {
    /// Passes on.
    public func isTargetPresent() async -> Bool { await base.isTargetPresent() }

    /// Passes on: the base reader waits its own way (events on PC/SC).
    public func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        await base.waitForRemoval(timeout: timeout, checkInterval: checkInterval)
    }

    /// The base reader's.
    public nonisolated var listsSeveralTargets: Bool { base.listsSeveralTargets }

    /// The base reader's.
    public var unsupportedCardReason: String? { get async { await base.unsupportedCardReason } }

    /// Passes on: the base reader lists the tags in its field its own way.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try await base.listTargets(for: modulations, limit: limit, timeout: timeout)
    }

    /// Passes on: the base reader selects one tag of those it listed.
    public func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) {
        try await base.select(target)
    }

    /// Passes on.
    public func deselect() async throws(NFCReaderDeviceError) { try await base.deselect() }

    /// Passes on.
    public func close() async { await base.close() }
}
