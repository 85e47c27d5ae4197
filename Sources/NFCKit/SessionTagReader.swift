import NFCCore
import NFCTags
import Synchronization

/// Which of a session's tags the app has connected to (CoreNFC's `connect(to:)`), shared by the
/// session and the readers its tags talk through.
final class SessionConnection: Sendable {
    private let connected = Mutex<Bytes?>(nil)

    /// The identifier of the connected tag; `nil` when none is.
    var identifier: Bytes? {
        get { connected.withLock { $0 } }
        set { connected.withLock { $0 = newValue } }
    }
}

/// The reader a session's tag talks through: the session's reader, passing a command on only
/// while this tag is the connected one. A command for a tag that is not connected fails with
/// ``NFCTags/NFCReaderDeviceError/Code/notConnected`` (CoreNFC's
/// `readerTransceiveErrorTagNotConnected`) and nothing is sent.
actor SessionTagReader: NFCReader {
    /// The session's reader.
    let base: any NFCReader
    /// The tag this reader is for.
    let identifier: Bytes
    private let connection: SessionConnection

    nonisolated let name: String
    nonisolated let connectionString: String
    nonisolated let supportedModulations: [Modulation]

    init(base: any NFCReader, identifier: Bytes, connection: SessionConnection) async {
        self.base = base
        self.identifier = identifier
        self.connection = connection
        name = await base.name
        connectionString = await base.connectionString
        supportedModulations = await base.supportedModulations
    }

    private func checkConnected() throws(NFCReaderDeviceError) {
        guard connection.identifier == identifier else {
            throw NFCReaderDeviceError(
                .notConnected, "the tag \(Hex.encode(identifier.array, uppercase: true)) is not connected: call the session's connect(to:) first")
        }
    }

    func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        try checkConnected()
        return try await base.poll(for: modulations, timeout: timeout)
    }

    func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        try checkConnected()
        return try await base.transceive(command, mode: mode, timeout: timeout)
    }

    func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        try checkConnected()
        try await base.authenticateClassic(block: block, keyType: keyType, key: key, uid: uid)
    }

    func isTargetPresent() async -> Bool {
        guard connection.identifier == identifier else { return false }
        return await base.isTargetPresent()
    }

    func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError) {
        try checkConnected()
        try await base.checkCanSend(command, mode: mode)
    }

    func deselect() async throws(NFCReaderDeviceError) {
        try checkConnected()
        try await base.deselect()
    }

    nonisolated var listsSeveralTargets: Bool { base.listsSeveralTargets }

    var unsupportedCardReason: String? { get async { await base.unsupportedCardReason } }

    func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try checkConnected()
        return try await base.listTargets(for: modulations, limit: limit, timeout: timeout)
    }

    func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try checkConnected()
        return try await base.listTargets(alongside: selected, limit: limit)
    }

    func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) {
        try checkConnected()
        try await base.select(target)
    }

    /// The session owns its reader: a tag never closes it.
    func close() async {}
}
