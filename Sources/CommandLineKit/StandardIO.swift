#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's real standard input, output and error (file descriptors 0, 1 and 2),
/// unbuffered so that output interleaves with libnfc's own writes in order.
public struct StandardIO: ToolIO {
    /// Creates the real I/O.
    public init() {}

    /// Writes all of `bytes` to file descriptor 1 or 2, retrying on `EINTR`. Write errors
    /// (a closed pipe) are ignored, as `print` ignores them.
    public func write(_ bytes: [UInt8], to stream: ToolOutputStream) {
        let descriptor: Int32 = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Reads file descriptor 0 to its end, retrying on `EINTR`.
    /// - Throws: ``CommandError`` (``ExitCode/failure``) naming the C error when `read` fails.
    public func readStandardInput() throws(CommandError) -> [UInt8] {
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                systemRead(STDIN_FILENO, buffer.baseAddress, buffer.count)
            }
            if count > 0 {
                input.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                return input
            } else if errno != EINTR {
                throw .failure("Cannot read standard input: \(String(cString: strerror(errno)))")
            }
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
}

/// `write(2)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// `read(2)`.
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}
