#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why reading or writing a file failed, in words that say what happened (never a framework's
/// error number).
public struct FileAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The input holds more than `limit` bytes; reading stopped there.
        case tooLarge(limit: Int)
        /// The path names a directory.
        case isDirectory
        /// The path names something that cannot be read or written as a stream of bytes (a
        /// socket); the words say what it is.
        case unsupported(String)
        /// A system call failed with this `errno`.
        case system(Int32)
    }

    /// What went wrong.
    public var kind: Kind

    /// Creates an error.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// The error of the last failed system call (`errno`).
    static func lastSystemError() -> FileAccessError {
        FileAccessError(.system(errno))
    }

    /// What happened, in a few words: `input larger than 1 MiB`, `is a directory`,
    /// `No space left on device`.
    public var description: String {
        switch kind {
        case .tooLarge(let limit): return "input larger than \(FileAccess.describeSize(limit))"
        case .isDirectory: return "is a directory"
        case .unsupported(let what): return "is \(what), not a file"
        case .system(let code): return String(cString: strerror(code))
        }
    }
}

/// Reading and writing whole files: the one place nfctool, the simulator and the emulators read
/// an input and write an output.
///
/// - Every read is bounded: a caller names the most it accepts, and more is an error rather
///   than memory without end (`ndef decode </dev/zero`).
/// - A regular file (or a path that does not exist yet) is written atomically: a temporary file
///   beside it, then renamed over it, so a reader sees the old or the new content, never half.
///   A symbolic link is followed: the file it points at gets the new content and the link stays
///   a link.
/// - Anything that is not a regular file (a FIFO, a character device such as `/dev/null`,
///   `/dev/full` or a terminal, `/dev/stdout`) is written in place, never replaced.
/// - Every `write`, `fsync` and `close` is checked: a full disk or `/dev/full` is an error.
public enum FileAccess {
    /// Reads the file at `path`: a regular file, a FIFO, a character device, `/dev/stdin`.
    /// - Throws: ``FileAccessError``: `tooLarge` when it holds more than `limit` bytes,
    ///   `isDirectory`, `unsupported` for a socket, `system` for the failed call (no such file,
    ///   permission denied, an I/O error).
    public static func read(_ path: String, limit: Int) throws(FileAccessError) -> [UInt8] {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            if errno == ENXIO, fileKind(path) == .socket { throw FileAccessError(.unsupported("a socket")) }
            throw .lastSystemError()
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw FileAccessError(.isDirectory)
        }
        return try read(descriptor: descriptor, limit: limit)
    }

    /// Reads `descriptor` to its end (standard input: file descriptor 0), retrying on `EINTR`.
    /// - Throws: ``FileAccessError`` `tooLarge` as soon as more than `limit` bytes came (the
    ///   rest is not read), `isDirectory` (`EISDIR`), `system` for a failed `read`.
    public static func read(descriptor: Int32, limit: Int) throws(FileAccessError) -> [UInt8] {
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // One byte beyond the limit tells "exactly the limit" from "more".
            let wanted = min(chunk.count, max(0, limit) + 1 - input.count)
            let count = chunk.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress, wanted)
            }
            if count > 0 {
                input.append(contentsOf: chunk[..<count])
                if input.count > limit { throw FileAccessError(.tooLarge(limit: limit)) }
            } else if count == 0 {
                return input
            } else if errno == EISDIR {
                throw FileAccessError(.isDirectory)
            } else if errno != EINTR {
                throw .lastSystemError()
            }
        }
    }

    /// Writes all of `bytes` to `descriptor`, retrying on `EINTR` and after short writes.
    /// - Throws: ``FileAccessError`` `system` for the failed `write` (`ENOSPC`, `EPIPE`, `EIO`).
    public static func write(_ bytes: [UInt8], descriptor: Int32) throws(FileAccessError) {
        var failure: Int32?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    // 0 bytes written for a non-empty buffer: no progress is possible.
                    failure = written < 0 ? errno : EIO
                    return
                }
            }
        }
        if let failure { throw FileAccessError(.system(failure)) }
    }

    /// Writes `bytes` as the whole content of `path` (see ``FileAccess`` for what happens to
    /// links, FIFOs and devices).
    ///
    /// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` are written to the open
    /// descriptor itself, so `-o /dev/stdout >> log` appends as the shell set it up.
    /// - Parameter durable: flush a regular file to the disk (`fsync`) before it replaces the
    ///   old one, so that a crash right after leaves the old or the new content, not an empty file.
    /// - Throws: ``FileAccessError``: `isDirectory`, `unsupported` for a socket, `system` for
    ///   the failed call (the directory is not writable, the disk is full, a link loops). The
    ///   old content is then left as it was (for a regular file).
    public static func write(_ bytes: [UInt8], to path: String, durable: Bool = true) throws(FileAccessError) {
        if let descriptor = standardDescriptor(path) {
            return try write(bytes, descriptor: descriptor)
        }
        let target = try resolvingLinks(path)
        if let descriptor = standardDescriptor(target) {
            return try write(bytes, descriptor: descriptor)
        }
        var status = stat()
        guard lstat(target, &status) == 0 else {
            guard errno == ENOENT else { throw .lastSystemError() }
            return try replace(target, with: bytes, existing: nil, durable: durable)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: try replace(target, with: bytes, existing: status, durable: durable)
        case S_IFDIR: throw FileAccessError(.isDirectory)
        case S_IFSOCK: throw FileAccessError(.unsupported("a socket"))
        default: try writeInPlace(target, bytes)
        }
    }

    /// Checks, writing nothing, that ``write(_:to:durable:)`` could write `path` now: what it
    /// will refuse is refused here first (a command checks before it does anything it cannot
    /// undo). Standard streams, FIFOs and devices pass (written in place); an existing regular
    /// file must be writable, and the directory a new or replaced file goes into must exist and
    /// be writable.
    /// - Throws: ``FileAccessError``: `isDirectory`, `unsupported` for a socket, `system` for a
    ///   missing directory (`ENOENT`, `ENOTDIR`), no permission (`EACCES`), a link that loops.
    public static func checkWritable(_ path: String) throws(FileAccessError) {
        if standardDescriptor(path) != nil { return }
        let target = try resolvingLinks(path)
        if standardDescriptor(target) != nil { return }
        var status = stat()
        if lstat(target, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw FileAccessError(.isDirectory)
            case S_IFSOCK: throw FileAccessError(.unsupported("a socket"))
            case S_IFREG: guard access(target, W_OK) == 0 else { throw .lastSystemError() }
            default: return
            }
        } else if errno != ENOENT {
            throw .lastSystemError()
        }
        let folder = directory(of: target) ?? "."
        var folderStatus = stat()
        guard stat(folder, &folderStatus) == 0 else { throw .lastSystemError() }
        guard folderStatus.st_mode & S_IFMT == S_IFDIR else { throw FileAccessError(.system(ENOTDIR)) }
        guard access(folder, W_OK | X_OK) == 0 else { throw .lastSystemError() }
    }

    /// Opens `path` to write a stream of lines to it as they come (a log, `--events FILE`): a
    /// regular file (or a new one) is emptied and written from its start, through a symbolic
    /// link to the file it names; a FIFO or a device is written in place (a FIFO waits for its
    /// reader); `/dev/stdout`, `/dev/fd/N` give that descriptor itself. The caller writes with
    /// ``write(_:descriptor:)`` and closes it with ``closeStream(_:)``.
    /// - Throws: ``FileAccessError``: `isDirectory`, `unsupported` for a socket, `system` for
    ///   the failed `open` (no such directory, permission denied, a link that loops).
    public static func openStream(_ path: String) throws(FileAccessError) -> Int32 {
        if let descriptor = standardDescriptor(path) { return descriptor }
        let target = try resolvingLinks(path)
        if let descriptor = standardDescriptor(target) { return descriptor }
        var status = stat()
        var flags = O_WRONLY | O_CLOEXEC | O_NOCTTY
        if lstat(target, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw FileAccessError(.isDirectory)
            case S_IFSOCK: throw FileAccessError(.unsupported("a socket"))
            case S_IFREG: flags |= O_TRUNC
            default: break
            }
        } else {
            guard errno == ENOENT else { throw .lastSystemError() }
            flags |= O_CREAT | O_EXCL
        }
        var descriptor: Int32
        repeat {
            descriptor = open(target, flags, 0o666)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .lastSystemError() }
        return descriptor
    }

    /// Closes a descriptor of ``openStream(_:)`` (standard input, output and error stay open).
    /// - Throws: ``FileAccessError`` `system` when `close` reports a failed write.
    public static func closeStream(_ descriptor: Int32) throws(FileAccessError) {
        guard descriptor > 2 else { return }
        guard close(descriptor) == 0 || errno == EINTR else { throw .lastSystemError() }
    }

    /// `1 MiB`, `64 KiB`, `100 bytes`: a limit as the errors and the docs say it.
    public static func describeSize(_ count: Int) -> String {
        if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }

    /// The descriptor a path names directly (`/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`,
    /// `/proc/<this process>/fd/N`), or `nil`.
    static func standardDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"] where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }

    /// The path a chain of symbolic links ends at (the path itself when it is no link); the
    /// last path need not exist. A link under `/proc` that names no file (`pipe:[…]`) ends the
    /// chain at the link.
    /// - Throws: ``FileAccessError`` `system(ELOOP)` after 40 links; `unsupported` for a link
    ///   whose target is not UTF-8.
    static func resolvingLinks(_ path: String) throws(FileAccessError) -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw .lastSystemError() }
            // A target that is not UTF-8 cannot be named by a String: decoding it with
            // replacement characters would write a different file, so it is refused.
            guard case .success(let target) = UnicodeValidation.decodeUTF8(buffer[..<count].map { UInt8(bitPattern: $0) }) else {
                throw FileAccessError(.unsupported("a symbolic link to a name that is not UTF-8"))
            }
            if standardDescriptor(target) != nil { return target }
            if current.hasPrefix("/proc/"), !target.hasPrefix("/") { return current }
            current = target.hasPrefix("/") ? target : directory(of: current).map { $0 + "/" + target } ?? target
        }
        throw FileAccessError(.system(ELOOP))
    }

    /// The directory part of `path` (`a/b` → `a`, `/b` → `/`, `b` → `nil`): text only, never
    /// a trap on short names.
    public static func directory(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let folder = path[..<slash]
        return folder.isEmpty ? "/" : String(folder)
    }

    /// What a path names.
    public enum FileKind: Sendable, Hashable {
        /// A regular file.
        case regular
        /// A directory.
        case directory
        /// A FIFO (named pipe).
        case fifo
        /// A character device (`/dev/null`, a terminal).
        case characterDevice
        /// A block device.
        case blockDevice
        /// A Unix-domain socket.
        case socket
        /// Anything else.
        case other
    }

    /// The kind of file at `path` (following links), or `nil` when it does not exist.
    public static func fileKind(_ path: String) -> FileKind? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    /// Writes a FIFO or a device in place: opened for writing (a FIFO waits for its reader),
    /// written, closed, each step checked.
    private static func writeInPlace(_ path: String, _ bytes: [UInt8]) throws(FileAccessError) {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .lastSystemError() }
        do {
            try write(bytes, descriptor: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 || errno == EINTR else { throw .lastSystemError() }
    }

    /// Writes a temporary file in `path`'s directory and renames it over `path`. The new file
    /// keeps the old one's permissions (and owner, when allowed); a new one gets 0666 less the
    /// umask, as a shell's `>` does.
    private static func replace(_ path: String, with bytes: [UInt8], existing: stat?, durable: Bool) throws(FileAccessError) {
        let folder = directory(of: path)
        let name = folder.map { String(path.dropFirst($0 == "/" ? 1 : $0.count + 1)) } ?? path
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<100 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            temporary = (folder.map { $0 == "/" ? "/" : $0 + "/" } ?? "") + ".\(name).\(suffix).tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0o666)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw .lastSystemError() }
        do throws(FileAccessError) {
            if let existing {
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
                guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else { throw .lastSystemError() }
            }
            try write(bytes, descriptor: descriptor)
            if durable, fsync(descriptor) != 0 { throw .lastSystemError() }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 || errno == EINTR else {
            let failure = FileAccessError.lastSystemError()
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = FileAccessError.lastSystemError()
            unlink(temporary)
            throw failure
        }
    }
}

/// `read(2)`.
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}

/// `write(2)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
