import Synchronization

/// In-memory I/O for running commands in tests: standard input is given up front, standard
/// output and error are collected.
public final class CapturedIO: ToolIO {
    private struct State {
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
    }

    private let state = Mutex(State())
    private let standardInput: [UInt8]

    /// Whether standard input pretends to be a terminal.
    public let isStandardInputTerminal: Bool
    /// Whether standard output pretends to be a terminal.
    public let isStandardOutputTerminal: Bool

    /// Creates captured I/O whose standard input holds `standardInput`.
    public init(
        standardInput: [UInt8] = [],
        isStandardInputTerminal: Bool = false,
        isStandardOutputTerminal: Bool = false
    ) {
        self.standardInput = standardInput
        self.isStandardInputTerminal = isStandardInputTerminal
        self.isStandardOutputTerminal = isStandardOutputTerminal
    }

    /// Appends `bytes` to the captured stream.
    public func write(_ bytes: [UInt8], to stream: ToolOutputStream) {
        state.withLock { state in
            switch stream {
            case .standardOutput: state.standardOutput.append(contentsOf: bytes)
            case .standardError: state.standardError.append(contentsOf: bytes)
            }
        }
    }

    /// The standard input given at creation, whole, each time it is read.
    /// - Throws: ``CommandError`` data error when it holds more than `limit` bytes, as
    ///   ``StandardIO`` does.
    public func readStandardInput(limit: Int) throws(CommandError) -> [UInt8] {
        guard standardInput.count <= limit else { throw .inputTooLarge("standard input", limit: limit) }
        return standardInput
    }

    /// Everything written to standard output so far, as bytes.
    public var standardOutputBytes: [UInt8] { state.withLock { $0.standardOutput } }

    /// Everything written to standard output so far, decoded as UTF-8.
    public var standardOutput: String { String(decoding: standardOutputBytes, as: UTF8.self) }

    /// Everything written to standard error so far, decoded as UTF-8.
    public var standardError: String {
        String(decoding: state.withLock { $0.standardError }, as: UTF8.self)
    }
}
