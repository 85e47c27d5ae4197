import Foundation

/// CoreNFC's `NFCPresentmentIntentAssertion`, as far as Linux has a meaning for it.
///
/// On iOS an app acquires one before a ``CardSession`` so that the system's default contactless
/// app (the wallet) does not present its own cards while the app is presenting. Linux has no such
/// app: nothing else answers an external reader through NFCKit's readers, so there is nothing to
/// keep away, and this assertion suppresses nothing and reserves nothing (the ``CardSession``
/// takes the reader for itself when it is created, across processes). What ``acquire()`` does
/// check is the part that can be checked: that a card session could start now; where none can,
/// it throws, so that code ported from CoreNFC stops there as it would on a device that cannot
/// present. docs/porting-from-corenfc.md, "Card emulation".
public final class NFCPresentmentIntentAssertion: Sendable {
    /// The reader the assertion was acquired for (`nil`: libnfc's default).
    public let connection: String?

    private init(connection: String?) {
        self.connection = connection
    }

    /// CoreNFC's `NFCPresentmentIntentAssertion.acquire()`, for libnfc's default reader:
    /// ``acquire(connection:)`` with `nil`.
    /// - Throws: as ``acquire(connection:)``.
    public static func acquire() async throws(NFCReaderError) -> NFCPresentmentIntentAssertion {
        try await acquire(connection: nil)
    }

    /// An assertion for the reader `connection` names, granted when a card session can start on
    /// it now (``NFCCardSession/isEligible(connection:)``).
    /// - Throws: ``NFCReaderError/Code/readerErrorUnsupportedFeature`` when no card session can
    ///   start there (a reader without ISO 14443-A target mode, the simulator, a PC/SC reader,
    ///   no reader, or one another session holds), naming the reader.
    public static func acquire(connection: String?) async throws(NFCReaderError) -> NFCPresentmentIntentAssertion {
        guard await NFCCardSession.isEligible(connection: connection) else {
            throw NFCReaderError(
                .readerErrorUnsupportedFeature,
                "no card can be presented on the reader '\(connection ?? "default")': it has no ISO 14443-A target mode, cannot be opened or is in use")
        }
        return NFCPresentmentIntentAssertion(connection: connection)
    }
}
