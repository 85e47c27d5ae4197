import NFCCore

/// Where a command's output goes and its input comes from.
///
/// The real tool uses ``StandardIO``; tests use ``CapturedIO``, which keeps everything in
/// memory. Commands never touch file descriptors 0, 1 and 2 themselves.
public protocol ToolIO: Sendable {
    /// Writes `bytes` to standard output or standard error, as they are.
    func write(_ bytes: [UInt8], to stream: ToolOutputStream)

    /// Reads standard input to its end, at most `limit` bytes: a command names the most it
    /// accepts, so that `</dev/zero` is an error rather than memory without end.
    /// - Throws: ``CommandError``: data error (``ExitCode/dataError``) `standard input: input
    ///   larger than …` beyond `limit`; failure (``ExitCode/failure``) when reading fails.
    func readStandardInput(limit: Int) throws(CommandError) -> [UInt8]

    /// Reads one line of standard input (an answer to a prompt), without its newline; `nil` at
    /// the end of input.
    func readStandardInputLine() -> String?

    /// Whether standard input is a terminal (nobody piped anything in).
    var isStandardInputTerminal: Bool { get }

    /// Whether standard output is a terminal (binary output would land on a screen).
    var isStandardOutputTerminal: Bool { get }

    /// The width in columns of the terminal standard error is, or `nil` when standard error is
    /// no terminal (a file, a pipe): a status line redrawn in place must fit it.
    var standardErrorTerminalColumns: Int? { get }

    /// Why writing standard output failed, or `nil` while every write succeeded (or the I/O
    /// cannot fail). ``CommandLineTool`` turns a failure into exit 1 once the command is done.
    var standardOutputFailure: OutputFailure? { get }
}

/// Why standard output could not be written.
public enum OutputFailure: Sendable, Hashable, CustomStringConvertible {
    /// Whoever read it went away (`EPIPE`: `| head` while SIGPIPE is ignored or caught).
    case closed
    /// The write failed for another reason: the words of the C error (`No space left on device`).
    case failed(String)

    /// `the reader closed it`, or the C error's words.
    public var description: String {
        switch self {
        case .closed: return "the reader closed it (broken pipe)"
        case .failed(let reason): return reason
        }
    }
}

/// One of the two output streams.
public enum ToolOutputStream: Sendable, Hashable {
    /// Standard output: results.
    case standardOutput
    /// Standard error: errors and diagnostics.
    case standardError
}

extension ToolIO {
    /// No terminal: I/O kept in memory (``CapturedIO``).
    public var standardErrorTerminalColumns: Int? { nil }

    /// No failure: I/O that cannot fail (``CapturedIO``).
    public var standardOutputFailure: OutputFailure? { nil }

    /// The first line of what ``readStandardInput(limit:)`` returns (for I/O that keeps input
    /// whole), reading at most 64 KiB.
    public func readStandardInputLine() -> String? {
        guard let bytes = try? readStandardInput(limit: 64 * 1024), !bytes.isEmpty else { return nil }
        return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    /// Writes `text` as UTF-8, with no newline added, made terminal-safe: a control character,
    /// DEL, a C1 control or a bidirectional override that reached the text (from a tag, a file, a
    /// reader's name) is shown escaped (``TerminalSafeText``), never sent raw. JSON from
    /// ``try toolJSON(_:pretty:)`` passes unchanged: it holds none of them raw. Bytes that must stay
    /// exact (binary dumps, encoded messages) go through ``write(_:to:)`` with `[UInt8]`.
    public func write(_ text: String, to stream: ToolOutputStream = .standardOutput) {
        write(Array(TerminalSafeText.escaping(text).utf8), to: stream)
    }

    /// Writes `line` and a newline to standard output.
    public func printLine(_ line: String) {
        write(line + "\n", to: .standardOutput)
    }

    /// Writes `line` and a newline to standard error.
    public func printErrorLine(_ line: String) {
        write(line + "\n", to: .standardError)
    }
}
