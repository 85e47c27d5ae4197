import CommandLineKit
import NFCCore
import Provisioning
import Synchronization

/// `batch --event-log FILE|-`: one JSON line per batch event (``BatchEventRecord``), written as
/// it happens to a file, a FIFO, or standard output (`-`). A write that fails ends the log with
/// one message on standard error and calls `onFailure`: the batch finishes the tags in progress,
/// records them, stops and exits 1 naming the file (``failure``); events are never lost quietly.
final class BatchEventLog: Sendable {
    private enum Sink: Sendable {
        case standardOutput
        case descriptor(Int32)
    }

    private let sink: Sink
    /// The file, as given to `--event-log`.
    let path: String
    private let io: any ToolIO
    private let onFailure: @Sendable (String) -> Void
    /// Why the log failed (nil while it has not).
    private let failed = Mutex<String?>(nil)

    /// Opens the log at `path` (`-`: standard output); `onFailure` is called once, with the
    /// error in words, when a write fails.
    /// - Throws: a usage error naming the file when it cannot be opened.
    init(path: String, io: any ToolIO, onFailure: @escaping @Sendable (String) -> Void) throws(CommandError) {
        self.path = path
        self.io = io
        self.onFailure = onFailure
        if path == "-" {
            sink = .standardOutput
        } else {
            do { sink = .descriptor(try FileAccess.openStream(path)) } catch { throw .usage("--event-log \(path): \(error)") }
        }
    }

    /// The error that ended the log, in words (nil while every event was written).
    var failure: String? { failed.withLock { $0 } }

    /// Writes `record` as one line.
    func write(_ record: BatchEventRecord) {
        let failure: String? = failed.withLock { failed in
            guard failed == nil else { return nil }
            switch sink {
            case .standardOutput:
                io.write(record.jsonLine(), to: .standardOutput)
                return nil
            case .descriptor(let descriptor):
                do throws(FileAccessError) { try FileAccess.write(record.jsonLine(), descriptor: descriptor) } catch {
                    failed = "\(error)"
                    return "\(error)"
                }
                return nil
            }
        }
        guard let failure else { return }
        io.printErrorLine("nfctool: --event-log \(path): \(failure); no more events are written: the batch stops after the tags in progress")
        onFailure(failure)
    }

    /// Closes the file (standard output stays open); a close that fails is the log's
    /// ``failure`` too.
    func close() {
        guard case .descriptor(let descriptor) = sink else { return }
        do throws(FileAccessError) { try FileAccess.closeStream(descriptor) } catch {
            io.printErrorLine("nfctool: --event-log \(path): \(error)")
            failed.withLock { failed in if failed == nil { failed = "\(error)" } }
        }
    }
}
