#if canImport(Glibc)
import Glibc
#endif

/// The C library's pseudo-terminal calls (POSIX `posix_openpt`, `grantpt`, `unlockpt`,
/// glibc `ptsname_r`), looked up at run time: Swift's Glibc module does not export them.
private enum PTYCalls {
    typealias OpenPT = @convention(c) (Int32) -> Int32
    typealias FDCall = @convention(c) (Int32) -> Int32
    typealias PTSName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    static func openpt(_ flags: Int32) -> Int32 {
        guard let call = symbol("posix_openpt", as: OpenPT.self) else { return Glibc.open("/dev/ptmx", flags) }
        return call(flags)
    }

    static func grantpt(_ fd: Int32) -> Int32 { symbol("grantpt", as: FDCall.self).map { $0(fd) } ?? 0 }
    static func unlockpt(_ fd: Int32) -> Int32 { symbol("unlockpt", as: FDCall.self).map { $0(fd) } ?? -1 }
    static func ptsname(_ fd: Int32, _ buffer: UnsafeMutablePointer<CChar>, _ size: Int) -> Int32 {
        symbol("ptsname_r", as: PTSName.self).map { $0(fd, buffer, size) } ?? -1
    }
}

/// Why the pseudo-terminal could not be set up; `errno` is the C error number.
public struct PseudoTerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The C call that failed: `posix_openpt`, `grantpt`, `unlockpt`, `ptsname`, `open`,
    /// `tcgetattr`, `tcsetattr`, `symlink`.
    public var call: String
    /// The C error number (`errno`) it left.
    public var errno: Int32

    /// `posix_openpt: No such device`.
    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// A pseudo-terminal pair standing in for the PN532's serial port (HSU, UM0701-02 §6.2.2):
/// the emulator reads and writes the master side; libnfc or nfcpy open ``slavePath``.
///
/// Both sides are in raw mode (`cfmakeraw`), and the emulator keeps the slave open itself so the
/// master never sees a hang-up between two clients.
public final class PseudoTerminal {
    /// The master side's file descriptor.
    public let masterFD: Int32
    /// The emulator's own descriptor of the slave side, kept open.
    public let slaveFD: Int32
    /// The slave's path, `/dev/pts/N`: what clients open.
    public let slavePath: String

    /// Opens a new pair.
    /// - Throws: ``PseudoTerminalError`` naming the failing call.
    public init() throws(PseudoTerminalError) {
        let master = PTYCalls.openpt(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw PseudoTerminalError(call: "posix_openpt", errno: Glibc.errno) }
        guard PTYCalls.grantpt(master) == 0 else { let e = Glibc.errno; close(master); throw PseudoTerminalError(call: "grantpt", errno: e) }
        guard PTYCalls.unlockpt(master) == 0 else { let e = Glibc.errno; close(master); throw PseudoTerminalError(call: "unlockpt", errno: e) }
        var name = [CChar](repeating: 0, count: 128)
        guard PTYCalls.ptsname(master, &name, name.count) == 0 else {
            let e = Glibc.errno; close(master); throw PseudoTerminalError(call: "ptsname", errno: e)
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { let e = Glibc.errno; close(master); throw PseudoTerminalError(call: "open", errno: e) }
        for fd in [master, slave] {
            var settings = termios()
            guard tcgetattr(fd, &settings) == 0 else {
                let e = Glibc.errno; close(master); close(slave); throw PseudoTerminalError(call: "tcgetattr", errno: e)
            }
            cfmakeraw(&settings)
            guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
                let e = Glibc.errno; close(master); close(slave); throw PseudoTerminalError(call: "tcsetattr", errno: e)
            }
        }
        masterFD = master
        slaveFD = slave
        slavePath = path
    }

    deinit {
        close(masterFD)
        close(slaveFD)
    }

    /// Makes `path` a symbolic link to ``slavePath``, replacing an older link there (for nfcpy,
    /// which wants a name under /dev, or a stable name in scripts).
    /// - Throws: ``PseudoTerminalError`` `symlink` when the link cannot be made.
    public func link(at path: String) throws(PseudoTerminalError) {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { unlink(path) }
        guard symlink(slavePath, path) == 0 else { throw PseudoTerminalError(call: "symlink", errno: Glibc.errno) }
    }

    /// Writes all of `bytes` to the master side, waiting at most a second for room.
    /// - Returns: whether everything was written.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(masterFD, $0.baseAddress, $0.count) }
            if written > 0 { offset += written; continue }
            if written < 0 && Glibc.errno == EINTR { continue }
            if written < 0 && Glibc.errno == EAGAIN {
                var descriptor = pollfd(fd: masterFD, events: Int16(POLLOUT), revents: 0)
                if poll(&descriptor, 1, 1000) > 0 { continue }
            }
            return false
        }
        return true
    }

    /// Reads what is available (blocking until something is), at most 4 KiB.
    /// - Returns: the bytes, empty at end of file or on error.
    public func read() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(masterFD, $0.baseAddress, $0.count) }
            if count < 0 && Glibc.errno == EINTR { continue }
            return count > 0 ? Array(buffer[0..<count]) : []
        }
    }
}
