public import NFCCore

/// One command a ``TracingReader`` passed on, with its outcome.
public struct TracedCommand: Sendable, Hashable {
    /// The command bytes as given to ``NFCReader/transceive(_:mode:timeout:)``.
    public var command: Bytes
    /// The framing asked for.
    public var mode: TransceiveMode
    /// The answer, or the error the reader threw.
    public var result: Result<Bytes, NFCReaderDeviceError>
    /// Whether the command went to whatever chip is in the field, not to the selected target
    /// (``NFCReader/transceiveUnselected(_:timeout:)``; its mode is then `raw`: an ISO 15693
    /// frame as it is, without CRC).
    public var unselected: Bool

    /// A command, its framing and its outcome (what a fake reader in tests records too).
    public init(command: Bytes, mode: TransceiveMode, result: Result<Bytes, NFCReaderDeviceError>, unselected: Bool = false) {
        self.command = command
        self.mode = mode
        self.result = result
        self.unselected = unselected
    }
}

/// A reader that passes everything on to another and records each command: to assert the exact
/// command sequence an operation sends (through libnfc as through the simulator), and to count
/// commands per operation (docs/benchmarks.md). Classic authentications are recorded as commands
/// `60`/`61` + block; frames sent to no selected tag (an ICODE chip leaving privacy) as
/// ``TracedCommand/unselected`` commands. The forwarding is ``InterposingReader``'s; the recording ``CommandTrace``'s.
public typealias TracingReader = InterposingReader<CommandTrace>

/// The record of a ``TracingReader``: every command it passed on, with its outcome.
public struct CommandTrace: ReaderInterposer {
    /// Every command so far, oldest first.
    public internal(set) var commands: [TracedCommand] = []

    /// An empty trace.
    public init() {}

    /// Polls are not recorded.
    public mutating func polled(_ found: TargetInfo?) {}

    /// Every command is sent.
    public mutating func answer(_ command: Bytes, mode: TransceiveMode) -> Bytes? { nil }

    /// Records the exchange; the outcome is given as is.
    public mutating func exchanged(
        _ command: Bytes, mode: TransceiveMode, outcome: Result<Bytes, NFCReaderDeviceError>
    ) -> Result<Bytes, NFCReaderDeviceError> {
        commands.append(TracedCommand(command: command, mode: mode, result: outcome))
        return outcome
    }

    /// Records the frame as an ``TracedCommand/unselected`` command.
    public mutating func exchangedUnselected(_ frame: Bytes, outcome: Result<Bytes, NFCReaderDeviceError>) {
        commands.append(TracedCommand(command: frame, mode: .raw, result: outcome, unselected: true))
    }

    /// Records `60|61 block`, with an empty answer for success.
    public mutating func authenticated(block: UInt8, keyType: ClassicKeyType, outcome: Result<Void, NFCReaderDeviceError>) {
        commands.append(TracedCommand(command: Bytes([keyType.rawValue, block]), mode: .standard, result: outcome.map { Bytes() }))
    }
}

extension InterposingReader where Interposer == CommandTrace {
    /// Wraps `base`, recording nothing yet.
    public init(_ base: any NFCReader) async {
        await self.init(base, interposer: CommandTrace())
    }

    /// Every command so far, oldest first.
    public var commands: [TracedCommand] { interposer.commands }

    /// Forgets the commands recorded so far.
    public func reset() { interposer.commands = [] }
}
