public import NFCCore
import Synchronization

/// A reader that passes everything on to another and writes each call to a trace file as it
/// happens: `nfctool --trace FILE`. The forwarding is ``InterposingReader``'s; the recording
/// ``ReaderTraceRecording``'s.
public typealias RecordingReader = InterposingReader<ReaderTraceRecording>

/// The interposer of a ``RecordingReader``: redacts each call (unless told not to) and hands it
/// to its ``ReaderTraceWriter``, which numbers it. Changes nothing the caller sees. Several
/// recording readers may share one writer (a reader opened again after it was lost).
public struct ReaderTraceRecording: ReaderInterposer {
    /// Where the lines go.
    public let writer: ReaderTraceWriter
    /// The redactor, nil for an unredacted trace.
    var redactor: ReaderTraceRedactor?

    /// Records to `writer`, redacted as the writer's header says.
    public init(writer: ReaderTraceWriter) {
        self.writer = writer
        redactor = writer.header.redacted ? ReaderTraceRedactor() : nil
    }

    /// Every call is observed.
    public static var observesCalls: Bool { true }
    /// Nothing: the poll is recorded by ``observed(_:result:elapsed:)``.
    public mutating func polled(_ found: TargetInfo?) {}
    /// Every command is sent.
    public mutating func answer(_ command: Bytes, mode: TransceiveMode) -> Bytes? { nil }
    /// The outcome as it is.
    public mutating func exchanged(
        _ command: Bytes, mode: TransceiveMode, outcome: Result<Bytes, NFCReaderDeviceError>
    ) -> Result<Bytes, NFCReaderDeviceError> { outcome }
    /// Nothing: the authentication is recorded by ``observed(_:result:elapsed:)``.
    public mutating func authenticated(block: UInt8, keyType: ClassicKeyType, outcome: Result<Void, NFCReaderDeviceError>) {}

    /// Writes the call as the next event, redacted unless the trace is unredacted.
    public mutating func observed(_ request: ReaderTraceRequest, result: ReaderTraceResult, elapsed: Duration) {
        var (request, result) = (request, result)
        if var active = redactor {
            (request, result) = active.redact(request, result)
            redactor = active
        }
        let (seconds, attoseconds) = elapsed.components
        let microseconds = max(0, Int(clamping: seconds) &* 1_000_000 &+ Int(attoseconds / 1_000_000_000_000))
        writer.append(request, result: result, microseconds: microseconds)
    }
}

extension InterposingReader where Interposer == ReaderTraceRecording {
    /// Wraps `base`, recording each call to `writer`.
    public init(_ base: any NFCReader, recordingTo writer: ReaderTraceWriter) async {
        await self.init(base, interposer: ReaderTraceRecording(writer: writer))
    }
}

/// A trace file being written: the header at once, then one line per event as it comes, each
/// line written whole with ``FileAccess``'s checked writes (through a symbolic link to its
/// target, in place into a FIFO or a device, never replacing one). A failed write (a full disk)
/// stops the writing and is reported by ``finish()``.
public final class ReaderTraceWriter: Sendable {
    /// The file's path as given.
    public let path: String
    /// The header written first.
    public let header: ReaderTraceHeader

    private struct State {
        var descriptor: Int32?
        var failure: FileAccessError?
        var count = 0
    }
    private let state: Mutex<State>

    /// Opens `path` (see ``FileAccess/openStream(_:)``) and writes `header`.
    /// - Throws: ``FileAccessError`` when the file cannot be opened or the header not written.
    public init(path: String, header: ReaderTraceHeader) throws(FileAccessError) {
        self.path = path
        self.header = header
        let descriptor = try FileAccess.openStream(path)
        do {
            try FileAccess.write(Array((header.jsonLine + "\n").utf8), descriptor: descriptor)
        } catch {
            try? FileAccess.closeStream(descriptor)
            throw error
        }
        state = Mutex(State(descriptor: descriptor))
    }

    /// Writes the next event's line, numbered after the last; after a failure, nothing more is
    /// written.
    public func append(_ request: ReaderTraceRequest, result: ReaderTraceResult, microseconds: Int) {
        state.withLock { state in
            guard state.failure == nil, let descriptor = state.descriptor else { return }
            state.count += 1
            let event = ReaderTraceEvent(number: state.count, request: request, result: result, microseconds: microseconds)
            do throws(FileAccessError) {
                try FileAccess.write(Array((event.jsonLine + "\n").utf8), descriptor: descriptor)
            } catch {
                state.failure = error
            }
        }
    }

    /// The events written so far.
    public var count: Int { state.withLock { $0.count } }

    /// Closes the file (once; later calls do nothing more than report the same failure).
    /// - Throws: the first ``FileAccessError`` of a write or of the close.
    public func finish() throws(FileAccessError) {
        let failure: FileAccessError? = state.withLock { state in
            if let descriptor = state.descriptor {
                state.descriptor = nil
                do throws(FileAccessError) {
                    try FileAccess.closeStream(descriptor)
                } catch {
                    if state.failure == nil { state.failure = error }
                }
            }
            return state.failure
        }
        if let failure { throw failure }
    }

    deinit {
        try? finish()
    }
}
