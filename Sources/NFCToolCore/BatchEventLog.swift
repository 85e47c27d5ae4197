import CommandLineKit
import NFCCore
import Provisioning
import Synchronization

/// `batch --events FILE|-`: one JSON line per batch event (``BatchEventRecord``), written as it
/// happens to a file, a FIFO, or standard output (`-`). A write that fails ends the log with one
/// message on standard error; the batch goes on.
final class BatchEventLog: Sendable {
    private enum Sink: Sendable {
        case standardOutput
        case descriptor(Int32)
    }

    private let sink: Sink
    private let path: String
    private let io: any ToolIO
    private let failed = Mutex(false)

    /// Opens the log at `path` (`-`: standard output).
    /// - Throws: a usage error naming the file when it cannot be opened.
    init(path: String, io: any ToolIO) throws(CommandError) {
        self.path = path
        self.io = io
        if path == "-" {
            sink = .standardOutput
        } else {
            do { sink = .descriptor(try FileAccess.openStream(path)) } catch { throw .usage("--events \(path): \(error)") }
        }
    }

    /// Writes `record` as one line.
    func write(_ record: BatchEventRecord) {
        failed.withLock { failed in
            guard !failed else { return }
            switch sink {
            case .standardOutput:
                io.write(record.jsonLine(), to: .standardOutput)
            case .descriptor(let descriptor):
                do throws(FileAccessError) { try FileAccess.write(record.jsonLine(), descriptor: descriptor) } catch {
                    failed = true
                    io.printErrorLine("nfctool: --events \(path): \(error); no more events are written")
                }
            }
        }
    }

    /// Closes the file (standard output stays open).
    func close() {
        guard case .descriptor(let descriptor) = sink else { return }
        do throws(FileAccessError) { try FileAccess.closeStream(descriptor) } catch {
            io.printErrorLine("nfctool: --events \(path): \(error)")
        }
    }
}
