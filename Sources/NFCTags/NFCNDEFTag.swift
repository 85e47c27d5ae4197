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

    /// The status and the stored message together, as ``queryNDEFStatus()`` then
    /// ``readNDEF()`` would give them (no message when NDEF is not supported). A platform whose
    /// detection has side effects on the tag does it once: Type 4 selects the NDEF file once,
    /// so an NTAG 424 DNA's SDM read counter steps by one per reading, as a phone's tap does.
    func readNDEFWithStatus() async throws(NFCTagError) -> NDEFReading

    /// Replaces the stored message. Every check (NDEF present, writable, fits, password known)
    /// comes before the first write command; a failed check sends none. With `verify`, the
    /// written bytes are read back and a difference is ``NFCTagError/Code/verificationFailed``.
    func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError)

    /// Makes the tag permanently read-only with the platform's real mechanism (lock bits, access
    /// conditions). Irreversible. A tag without such a mechanism throws
    /// ``NFCTagError/Code/notSupported`` and is left unchanged.
    func writeLock() async throws(NFCTagError)

    /// Whether ``writeLock()`` has a mechanism for this tag on this reader, found without
    /// writing: throws ``NFCTagError/Code/notSupported`` with the reason `writeLock()` would
    /// give (a Type 4 tag; a Type 5 tag without Lock Block; a Type 2 tag whose model this reader
    /// cannot learn). Called before anything else is written (a message that is to be locked
    /// after it), so that a tag that cannot be locked is refused with the tag unchanged. A blank
    /// tag is judged as it will be once ``format(force:)`` has run. Passing does not promise
    /// the lock: `writeLock()` still checks write access, passwords and keys itself, before its
    /// first write.
    func checkLockable() async throws(NFCTagError)

    /// What keeps the tag from being physically read-only, found by reading (nothing is
    /// written): one sentence per missing part (a Type 2 tag: CC3's write access, the lock bit
    /// of each NDEF page and of the CC, CFGLCK on NTAG21x / Ultralight EV1; Type 5: the CC's
    /// write access and each block's lock; FeliCa Lite-S: RWFlag and MC; Type 4: the CC's write
    /// access, and an NTAG 424 DNA's NDEF file settings; MIFARE Classic: each sector's access
    /// bits and GPB). Empty when the tag is locked for good. A platform that exposes no lock
    /// state beyond its NDEF status judges by that status.
    func readOnlyGaps() async throws(NFCTagError) -> [String]

    /// Initialises a blank tag for NDEF (capability container, attribute block, MAD…) holding an
    /// empty message. A tag that already holds data is refused with
    /// ``NFCTagError/Code/alreadyFormatted`` unless `force` is set.
    func format(force: Bool) async throws(NFCTagError)

    /// Whether the tag is still in the reader's field and answering, asked of the reader that
    /// holds it (``NFCReader/isTargetPresent()``: libnfc's `nfc_initiator_target_is_present`, the
    /// simulator's field, PC/SC's card state); nothing of the tag's memory is read or written.
    /// `false` once the tag left, the reader was closed, or (in a session) another tag is the
    /// connected one. CoreNFC's `NFCNDEFTag.isAvailable` is NFCKit's synchronous spelling of it.
    func isPresent() async -> Bool
}

extension NFCNDEFTag {
    /// ``queryNDEFStatus()``, then ``readNDEF()`` unless NDEF is not supported.
    public func readNDEFWithStatus() async throws(NFCTagError) -> NDEFReading {
        let query = try await queryNDEFStatus()
        guard query.status != .notSupported else { return NDEFReading(query: query, message: nil) }
        return NDEFReading(query: query, message: try await readNDEF())
    }

    /// The NDEF status alone: empty when it says read-only, else that it says writable.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        let query = try await queryNDEFStatus()
        switch query.status {
        case .readOnly: return []
        case .readWrite: return ["the NDEF access conditions grant writing"]
        case .notSupported: return ["the tag holds no NDEF"]
        }
    }

    /// ``writeNDEF(_:verify:)`` with read-back verification; a message with no records is
    /// written (an empty NDEF message, as ``format(force:)`` leaves).
    ///
    /// Disfavoured: where NFCKit is imported, its CoreNFC spelling `writeNDEF(_:)` (throwing
    /// `NFCReaderError`, refusing a message with no records with CoreNFC's code 403) is the one
    /// called; without NFCKit (NFCTags alone) this one is.
    @_disfavoredOverload
    public func writeNDEF(_ message: NDEFMessage) async throws(NFCTagError) {
        try await writeNDEF(message, verify: true)
    }

    /// ``format(force:)`` without force: only a blank tag is formatted.
    public func format() async throws(NFCTagError) {
        try await format(force: false)
    }
}

extension NDEFMessage {
    /// The bytes a platform writes, or ``NFCTagError/Code/invalidMessage`` (nothing is written).
    public func encodedForTag() throws(NFCTagError) -> [UInt8] {
        do {
            return try encoded()
        } catch {
            throw NFCTagError(.invalidMessage, "message cannot be encoded: \(error.reason)")
        }
    }
}

extension NFCTagError {
    /// Throws ``Code/capacityExceeded``, saying by how many bytes, when `length` exceeds
    /// `capacity`.
    static func checkCapacity(_ length: Int, fits capacity: Int) throws(NFCTagError) {
        guard length > capacity else { return }
        let over = length - capacity
        throw NFCTagError(
            .capacityExceeded, "message of \(length) bytes exceeds the capacity of \(capacity) by \(over) byte\(over == 1 ? "" : "s")")
    }
}

/// The NDEF TLV that Type 2, Type 5 and MIFARE Classic share (T = 03, a 1-byte length below
/// FFh, else FF and a 2-byte length; a Terminator TLV FE after it when room is left).
enum NDEFTLV {
    /// `encoded` as an NDEF TLV, followed by a Terminator TLV when `room` (usable bytes from the T
    /// byte on) leaves at least one byte.
    static func wrap(_ encoded: [UInt8], room: Int) -> [UInt8] {
        var tlv: [UInt8] = [Type2TLVType.ndefMessage]
        if encoded.count < 0xFF {
            tlv.append(UInt8(encoded.count))
        } else {
            tlv += [Type2TLVType.threeByteLengthMarker, UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)]
        }
        tlv += encoded
        if room > tlv.count { tlv.append(Type2TLVType.terminator) }
        return tlv
    }
}

/// A protocol-command tag (``MiFareTag``, ``ISO7816Tag``, ``FeliCaTag``, ``ISO15693Tag``) whose
/// NDEF operations are those of its platform mapping, as CoreNFC's tag types are NDEF tags too.
public protocol NFCNDEFPlatformTag: NFCNDEFTag {
    /// The NFC Forum platform mapping that does the NDEF work.
    var ndefPlatform: any NFCNDEFTag { get }
}

extension NFCNDEFPlatformTag {
    /// ``NFCNDEFTag/queryNDEFStatus()`` of ``ndefPlatform``.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery { try await ndefPlatform.queryNDEFStatus() }
    /// ``NFCNDEFTag/readNDEF()`` of ``ndefPlatform``.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage { try await ndefPlatform.readNDEF() }
    /// ``NFCNDEFTag/readNDEFWithStatus()`` of ``ndefPlatform``.
    public func readNDEFWithStatus() async throws(NFCTagError) -> NDEFReading { try await ndefPlatform.readNDEFWithStatus() }
    /// ``NFCNDEFTag/writeNDEF(_:verify:)`` of ``ndefPlatform``.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        try await ndefPlatform.writeNDEF(message, verify: verify)
    }
    /// ``NFCNDEFTag/writeLock()`` of ``ndefPlatform``.
    public func writeLock() async throws(NFCTagError) { try await ndefPlatform.writeLock() }
    /// ``NFCNDEFTag/checkLockable()`` of ``ndefPlatform``.
    public func checkLockable() async throws(NFCTagError) { try await ndefPlatform.checkLockable() }
    /// ``NFCNDEFTag/readOnlyGaps()`` of ``ndefPlatform``.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] { try await ndefPlatform.readOnlyGaps() }
    /// ``NFCNDEFTag/format(force:)`` of ``ndefPlatform``.
    public func format(force: Bool) async throws(NFCTagError) { try await ndefPlatform.format(force: force) }
}
