import CommandLineKit
import NFCCore
import NFCKit
import NFCTags

/// `--trace FILE` and `--trace-unredacted`, declared by every command that talks to a tag
/// (through ``TagCommandSupport/readerOptions``) and read here once.
struct ReaderTraceOptions: Sendable {
    /// `--trace FILE`.
    static let file = CommandOption.option(
        "trace", valueName: "file",
        help: "Write every exchange with the reader to FILE as JSON lines (docs/traces.md), to replay with --device replay:FILE or attach to a bug report. Passwords, keys and key-derived bytes are redacted.")
    /// `--trace-unredacted`.
    static let unredacted = CommandOption.flag(
        "trace-unredacted", help: "With --trace: keep passwords, keys and key-derived bytes in the trace (the file then holds secrets).")

    /// The trace file; nil without `--trace`.
    let path: String?
    /// `--trace-unredacted`.
    let unredacted: Bool

    /// Reads the options.
    /// - Throws: ``ExitCode/usage`` for `--trace-unredacted` without `--trace`, or an empty path.
    init(_ arguments: ParsedArguments) throws(CommandError) {
        path = arguments.value(of: Self.file)
        unredacted = arguments.contains(Self.unredacted)
        if unredacted && path == nil { throw .usage("--trace-unredacted needs --trace FILE") }
        if path?.isEmpty == true { throw .usage("--trace needs a file name") }
    }

    /// A redacted trace to `path` (a self-test's bundle).
    init(path: String) {
        self.path = path
        unredacted = false
    }

    /// No trace.
    init() {
        path = nil
        unredacted = false
    }
}

/// A reader a command opened, with what must be done when it is closed: the trace written to
/// its end (under `--trace`), a replay (`--device replay:FILE`) checked for a divergence and for
/// events it left unplayed (a warning on standard error).
struct CommandReader: Sendable {
    /// The reader the command works with: a ``RecordingReader`` under `--trace`.
    let reader: any NFCReader
    /// The reader as ``ReaderConnection`` opened it.
    let opened: any NFCReader
    /// The trace being written, under `--trace`.
    let trace: ReaderTraceWriter?
    /// Where a replay's warning goes (standard error).
    let io: any ToolIO

    /// Wraps `opened` in a ``RecordingReader`` when `options` asks for a trace (saying on standard
    /// error when the trace will hold secrets).
    /// - Throws: ``ExitCode/failure`` when the trace file cannot be opened (the reader is closed).
    static func wrap(_ opened: any NFCReader, _ options: ReaderTraceOptions, _ context: CommandContext) async throws(CommandError) -> CommandReader {
        guard let path = options.path else { return CommandReader(reader: opened, opened: opened, trace: nil, io: context.io) }
        let header = await ReaderConnection.traceHeader(for: opened, tool: "nfctool \(nfctoolVersion)", redacted: !options.unredacted)
        let writer: ReaderTraceWriter
        do {
            writer = try ReaderTraceWriter(path: path, header: header)
        } catch {
            await opened.close()
            throw .failure("cannot write the trace \(path): \(error)")
        }
        if options.unredacted {
            context.io.printErrorLine("Warning: the trace \(path) holds passwords, keys and key-derived bytes unredacted: do not post it.")
        }
        return CommandReader(reader: await RecordingReader(opened, recordingTo: writer), opened: opened, trace: writer, io: context.io)
    }

    /// Closes the reader and ends the trace. A replay that left events of its trace unplayed
    /// says so on standard error ("Warning: replay ended at exchange N of M: …"); the command's
    /// result stands.
    /// - Returns: the error the command must end with, if any: a replay's divergence (which
    ///   outranks whatever the command itself said, since the answers it got were not the
    ///   trace's), else a trace that could not be written (a full disk).
    func close() async -> (divergence: CommandError?, traceFailure: CommandError?) {
        await reader.close()
        var divergence: CommandError?
        if let replay = opened as? ReplayReader {
            if let message = await replay.divergence {
                divergence = .failure("replay \(message)")
            } else if let unused = await replay.unusedRemainder {
                io.printErrorLine("Warning: \(unused)")
            }
        }
        var traceFailure: CommandError?
        if let trace {
            do { try trace.finish() } catch { traceFailure = .failure("cannot write the trace \(trace.path): \(error)") }
        }
        return (divergence, traceFailure)
    }
}
