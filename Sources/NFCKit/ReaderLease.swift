import NFCTags
import Synchronization

/// The readers sessions hold, so that a reader has one active session at a time: by identity
/// for a reader handed to a session, by connection string for one a session opens from libnfc.
enum ReaderLease {
    enum Key: Hashable, Sendable {
        case reader(ObjectIdentifier)
        case connection(String)
    }

    private static let held = Mutex<Set<Key>>([])

    /// Takes `key`; false when another session holds it.
    static func acquire(_ key: Key) -> Bool {
        held.withLock { $0.insert(key).inserted }
    }

    /// Gives `key` back.
    static func release(_ key: Key) {
        _ = held.withLock { $0.remove(key) }
    }
}
