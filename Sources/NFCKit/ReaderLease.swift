import NFCCore
import Foundation
import NFCTags
import Synchronization

/// The readers sessions hold, so that a reader has one active session at a time: by identity
/// for a reader handed to a session, by connection string for one a session opens from libnfc.
///
/// A connection string is also held across processes: an exclusive POSIX record lock
/// (`fcntl(2)` `F_SETLK`) on a lock file named after it, in `NFCKIT_LOCK_DIR` (default: the
/// temporary directory). The kernel drops the lock when the process ends, however it ends. A
/// record lock belongs to the process, not to the open file: a child forked while a lease is
/// held (any thread spawning a process) does not inherit it, so a released lease is free at once
/// — an `flock(2)` stayed held by the child's copy of the descriptor until it called exec.
enum ReaderLease {
    enum Key: Hashable, Sendable {
        case reader(ObjectIdentifier)
        case connection(String)
    }

    private static let held = Mutex<[Key: Int32]>([:])

    /// Takes `key`; false when another session (of this process or, for a connection string,
    /// another process) holds it.
    static func acquire(_ key: Key) -> Bool {
        held.withLock { held in
            guard held[key] == nil else { return false }
            var descriptor: Int32 = -1
            if case .connection(let name) = key {
                descriptor = open(lockFilePath(for: name), O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
                // A lock file that cannot be made (a read-only directory) leaves the rule per process.
                if descriptor >= 0, !lockWholeFile(descriptor) {
                    close(descriptor)
                    return false
                }
            }
            held[key] = descriptor
            return true
        }
    }

    /// Takes an exclusive record lock on the whole of `descriptor`'s file without waiting.
    /// Closing any descriptor of the file in this process drops it, which is why a key is held
    /// at most once per process (``held``).
    private static func lockWholeFile(_ descriptor: Int32) -> Bool {
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        return fcntl(descriptor, F_SETLK, &request) == 0
    }

    /// Gives `key` back.
    static func release(_ key: Key) {
        held.withLock { held in
            if let descriptor = held.removeValue(forKey: key), descriptor >= 0 {
                close(descriptor)
            }
        }
    }

    /// The lock file of a connection string: `nfckit-` and the string with every character but
    /// ASCII letters, digits, `-` and `.` written as `_XX` (its UTF-8 bytes in hex).
    static func lockFilePath(for connection: String) -> String {
        var name = "nfckit-"
        for byte in connection.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += "_" + Hex.number(byte, width: 2)
            }
        }
        let directory = ProcessInfo.processInfo.environment["NFCKIT_LOCK_DIR"] ?? NSTemporaryDirectory()
        return URL(fileURLWithPath: directory).appendingPathComponent(name + ".lock").path
    }
}
