import Foundation
import Synchronization

/// A station's local journal of attempts it could not record because the shared ledger was
/// unreachable: verified tags written but not recorded (and failed attempts, so their rows are
/// given back). One JSON object a line, each appended with `fsync` before the station goes on,
/// so a crash after the write loses nothing; recorded (each once, by its key) and emptied when
/// the ledger is back, or when the station starts again.
public final class BatchJournal: Sendable {
    /// The journal file.
    public let path: String
    private let lock = Mutex(())

    /// A journal at `path` (created on the first append).
    public init(path: String) { self.path = path }

    /// Checks, before the first tag, that the journal can be written: an existing journal is
    /// opened for appending, a missing one created and removed again. A journal found unwritable
    /// only at the first outage would lose the tag it was to hold.
    public func checkWritable() throws(LedgerError) {
        try lock.withLock { _ throws(LedgerError) in
            var fd = open(path, O_WRONLY | O_APPEND)
            var created = false
            if fd < 0 && errno == ENOENT {
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
                created = fd >= 0
            }
            guard fd >= 0 else { throw LedgerError("the journal \(path) cannot be written: \(String(cString: strerror(errno)))") }
            var status = stat()
            let regular = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
            close(fd)
            if created { unlink(path) }
            guard regular else { throw LedgerError("the journal \(path) is not a regular file") }
        }
    }

    /// Appends `attempt` and flushes it to the disk.
    public func append(_ attempt: LedgerAttempt) throws(LedgerError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(attempt) else { throw LedgerError("cannot encode the attempt for the journal") }
        try lock.withLock { _ throws(LedgerError) in
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            guard fd >= 0 else { throw LedgerError("cannot open the journal \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            let line = Array(data) + [0x0A]
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count, fsync(fd) == 0 else {
                throw LedgerError("cannot write the journal \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The journalled attempts, oldest first (none when there is no journal). A torn last line
    /// (a crash during the append, before its `fsync`) is left out: that attempt was never
    /// acknowledged.
    public func entries() throws(LedgerError) -> [LedgerAttempt] {
        try lock.withLock { _ throws(LedgerError) -> [LedgerAttempt] in
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            let decoder = JSONDecoder()
            return data.split(separator: 0x0A).compactMap { try? decoder.decode(LedgerAttempt.self, from: Data($0)) }
        }
    }

    /// Removes the journal (its attempts are recorded).
    public func clear() throws(LedgerError) {
        try lock.withLock { _ throws(LedgerError) in
            if unlink(path) != 0 && errno != ENOENT {
                throw LedgerError("cannot remove the journal \(path): \(String(cString: strerror(errno)))")
            }
        }
    }
}
