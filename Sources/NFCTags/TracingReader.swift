public import NFCCore

/// One command a ``TracingReader`` passed on, with its outcome.
public struct TracedCommand: Sendable, Hashable {
    /// The command bytes as given to ``NFCReader/transceive(_:mode:timeout:)``.
    public var command: Bytes
    /// The framing asked for.
    public var mode: TransceiveMode
    /// The answer, or the error the reader threw.
    public var result: Result<Bytes, NFCReaderDeviceError>

    /// A command, its framing and its outcome (what a fake reader in tests records too).
    public init(command: Bytes, mode: TransceiveMode, result: Result<Bytes, NFCReaderDeviceError>) {
        self.command = command
        self.mode = mode
        self.result = result
    }
}

/// A reader that passes everything on to another and records each command: to assert the exact
/// command sequence an operation sends (through libnfc as through the simulator), and to count
/// commands per operation (docs/benchmarks.md). Classic authentications are recorded as commands
/// `60`/`61` + block.
public actor TracingReader: NFCReader {
    /// The reader doing the work.
    public let base: any NFCReader
    /// Every command so far, oldest first.
    public private(set) var commands: [TracedCommand] = []

    /// The base reader's name.
    public let name: String
    /// The base reader's connection string.
    public let connectionString: String

    /// Wraps `base`.
    public init(_ base: any NFCReader) async {
        self.base = base
        name = await base.name
        connectionString = await base.connectionString
        supportedModulations = await base.supportedModulations
    }
    /// The base reader's modulations.
    public let supportedModulations: [Modulation]

    /// Forgets the commands recorded so far.
    public func reset() { commands = [] }

    /// Passes on; not recorded.
    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        try await base.poll(for: modulations, timeout: timeout)
    }

    /// Passes on and records the exchange.
    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        do {
            let answer = try await base.transceive(command, mode: mode, timeout: timeout)
            commands.append(TracedCommand(command: command, mode: mode, result: .success(answer)))
            return answer
        } catch {
            commands.append(TracedCommand(command: command, mode: mode, result: .failure(error)))
            throw error
        }
    }

    /// Passes on and records `60|61 block`.
    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        let command = Bytes([keyType.rawValue, block])
        do {
            try await base.authenticateClassic(block: block, keyType: keyType, key: key, uid: uid)
            commands.append(TracedCommand(command: command, mode: .standard, result: .success(Bytes())))
        } catch {
            commands.append(TracedCommand(command: command, mode: .standard, result: .failure(error)))
            throw error
        }
    }

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
