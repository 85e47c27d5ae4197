import NFCCore
import Foundation
import NFCTags
import Synchronization

/// The readers sessions hold, so that a reader has one active session at a time: by identity
/// for a reader handed to a session, by connection string for one a session opens from libnfc.
///
/// A connection string is also held across processes: an exclusive `flock(2)` on a lock file
/// named after it, in `NFCKIT_LOCK_DIR` (default: the temporary directory). The kernel drops the
/// lock when the process ends, however it ends.
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
                if descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                    close(descriptor)
                    return false
                }
            }
            held[key] = descriptor
            return true
        }
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
