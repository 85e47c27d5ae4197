#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import NFCCore
import Synchronization

/// The process's real standard input, output and error (file descriptors 0, 1 and 2),
/// unbuffered so that output interleaves with libnfc's own writes in order.
///
/// A failed write to standard output (a full disk, `/dev/full`, a reader that went away while
/// SIGPIPE is ignored or caught) is remembered, and nothing more is written there:
/// ``standardOutputFailure`` tells ``CommandLineTool`` to exit 1 rather than 0 with output lost.
public struct StandardIO: ToolIO {
    /// The first failed write to standard output, shared by the copies of this value.
    private let failure = FailureBox()

    /// Creates the real I/O.
    public init() {}

    /// Writes all of `bytes` to file descriptor 1 or 2, retrying on `EINTR`. After a failed
    /// write to standard output, further output is dropped (see ``standardOutputFailure``);
    /// failures on standard error are ignored: there is nowhere left to report them.
    public func write(_ bytes: [UInt8], to stream: ToolOutputStream) {
        guard stream == .standardOutput else {
            try? FileAccess.write(bytes, descriptor: STDERR_FILENO)
            return
        }
        failure.state.withLock { failure in
            guard failure == nil else { return }
            do throws(FileAccessError) {
                try FileAccess.write(bytes, descriptor: STDOUT_FILENO)
            } catch {
                if case .system(let code) = error.kind {
                    failure = code == EPIPE ? .closed : .failed(error.description)
                } else {
                    failure = .failed(error.description)
                }
            }
        }
    }

    /// Why writing standard output failed, or `nil` while every write succeeded.
    public var standardOutputFailure: OutputFailure? {
        failure.state.withLock { $0 }
    }

    /// Reads file descriptor 0 to its end, at most `limit` bytes (``FileAccess/read(descriptor:limit:)``).
    /// - Throws: ``CommandError``: data error `standard input: input larger than …` beyond
    ///   `limit` (the rest is left unread); failure naming the C error when `read` fails.
    public func readStandardInput(limit: Int) throws(CommandError) -> [UInt8] {
        do {
            return try FileAccess.read(descriptor: STDIN_FILENO, limit: limit)
        } catch {
            if case .tooLarge = error.kind { throw .inputTooLarge("standard input", limit: limit) }
            throw .failure("Cannot read standard input: \(error)")
        }
    }

    /// One line from the process's standard input (through the C library's buffering).
    public func readStandardInputLine() -> String? {
        Swift.readLine(strippingNewline: true)
    }

    /// Whether file descriptor 0 is a terminal.
    public var isStandardInputTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether file descriptor 1 is a terminal.
    public var isStandardOutputTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// File descriptor 2's terminal width (`TIOCGWINSZ`), 80 when the terminal does not say;
    /// `nil` when it is no terminal.
    public var standardErrorTerminalColumns: Int? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}

/// The remembered failure of ``StandardIO``: a class, so that copies share it.
private final class FailureBox: Sendable {
    let state = Mutex<OutputFailure?>(nil)
}
