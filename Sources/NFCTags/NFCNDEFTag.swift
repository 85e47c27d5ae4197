public import NDEF

/// A tag that stores NDEF, whatever its platform: CoreNFC's `NFCNDEFTag`, in async Swift with a
/// typed error. Type 2 (``Type2Tag``), Type 3, Type 4, Type 5 and MIFARE Classic each implement
/// it; the protocol-command tags of ``NFCTag`` forward to theirs.
///
/// Every method reads what it needs afresh: nothing is cached between calls, since the tag may
/// have been changed by another reader in between.
public protocol NFCNDEFTag: Sendable {
    /// The NDEF detection procedure of the platform: whether NDEF is there, read-write or
    /// read-only, and how many bytes of NDEF message fit.
    func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery

    /// The stored NDEF message; an NDEF-formatted empty tag gives ``NDEFMessage/empty``.
    func readNDEF() async throws(NFCTagError) -> NDEFMessage

    /// Replaces the stored message. Every check (NDEF present, writable, fits, password known)
    /// comes before the first write command; a failed check sends none. With `verify`, the
    /// written bytes are read back and a difference is ``NFCTagError/Code/verificationFailed``.
    func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError)

    /// Makes the tag permanently read-only with the platform's real mechanism (lock bits, access
    /// conditions). Irreversible. A tag without such a mechanism throws
    /// ``NFCTagError/Code/notSupported`` and is left unchanged.
    func writeLock() async throws(NFCTagError)

    /// Initialises a blank tag for NDEF (capability container, attribute block, MAD…) holding an
    /// empty message. A tag that already holds data is refused with
    /// ``NFCTagError/Code/alreadyFormatted`` unless `force` is set.
    func format(force: Bool) async throws(NFCTagError)
}

extension NFCNDEFTag {
    /// ``writeNDEF(_:verify:)`` with read-back verification.
    public func writeNDEF(_ message: NDEFMessage) async throws(NFCTagError) {
        try await writeNDEF(message, verify: true)
    }

    /// ``format(force:)`` without force: only a blank tag is formatted.
    public func format() async throws(NFCTagError) {
        try await format(force: false)
    }
}
