public import NDEF

/// What the NDEF detection procedure read from a Type 2 tag: the memory from address 0 (the
/// lock bytes, the CC and the TLV area up to the NDEF TLV) and the query it answers. A write
/// that follows on the same selection starts from it instead of reading the same pages again
/// (``Type2Tag/writeNDEF(_:verify:detected:)``): the batch's check before a counter is drawn
/// and its write ask the tag once.
public struct Type2NDEFDetection: Sendable {
    /// The detection's answer: status, capacity and stored message length.
    public let query: NDEFQuery
    /// The memory read and its TLV area; nil when the tag is not NDEF formatted.
    let snapshot: Type2Tag.Snapshot?
    /// Why the tag is not NDEF when the CC says why (CC3 refusing read access); nil otherwise.
    public var notSupportedReason: NFCTagError? = nil
}

extension Type2Tag {
    /// The NDEF detection procedure (Type 2 Tag 1.2, 5.4), keeping what it read for a write that
    /// follows (``writeNDEF(_:verify:detected:)``). Sends what ``queryNDEFStatus()`` sends, unless
    /// `forWrite`: then, on a chip with FAST_READ, the first read covers pages 0–4 (lock bytes, CC,
    /// the first TLV page: ``Type2Command/writeDetectionLastPage``) instead of 0–15, and memory
    /// is read on only as far as the TLV area up to the stored message's end needs — what the
    /// write needs, since it does not read the pages it overwrites.
    /// - Throws: as ``queryNDEFStatus()``.
    public func detectNDEF(forWrite: Bool = false) async throws(NFCTagError) -> Type2NDEFDetection {
        try await authenticateIfPasswordSet()
        let snapshot: Snapshot
        do {
            snapshot = try await load(firstReadEnd: forWrite ? Type2Command.writeDetectionLastPage : Type2Command.fastReadMaxPages - 1)
        } catch where error.code == .notNDEFFormatted {
            // CC3's read access is the one refusal with a byte to name; a missing CC magic or
            // version is plain "no NDEF".
            let said = error.offset == Type2CapabilityContainer.address + 3 ? error : nil
            return Type2NDEFDetection(
                query: NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0), snapshot: nil, notSupportedReason: said)
        }
        let area = snapshot.area
        return Type2NDEFDetection(
            query: NDEFQuery(
                status: area.capabilityContainer.isWritable ? .readWrite : .readOnly, capacity: area.capacity,
                messageLength: area.messageLength),
            snapshot: snapshot)
    }

    /// The status and the message (``NFCNDEFTag/readNDEFWithStatus()``), with the reason a
    /// capability container gives for refusing (CC3's read access) kept in the reading.
    /// - Throws: as ``queryNDEFStatus()`` and ``readNDEF()``.
    public func readNDEFWithStatus() async throws(NFCTagError) -> NDEFReading {
        let detection = try await detectNDEF()
        guard detection.query.status != .notSupported else {
            return NDEFReading(query: detection.query, message: nil, notSupportedReason: detection.notSupportedReason)
        }
        return NDEFReading(query: detection.query, message: try await readNDEF())
    }

    /// ``writeNDEF(_:verify:)`` starting from `detected`, read from this tag in the same selection
    /// with nothing written since: the detection's pages are not read again. Every check of
    /// ``writeNDEF(_:verify:)`` is made (CC write access, capacity, static lock bits, an
    /// Ultralight C's lock byte 2, the configuration's password protection, read again here),
    /// and the write keeps its tear-safe order and read-back. A detection that found no NDEF reads afresh (and fails as the plain
    /// write does).
    /// - Throws: as ``writeNDEF(_:verify:)``.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool, detected: Type2NDEFDetection) async throws(NFCTagError) {
        guard let snapshot = detected.snapshot else {
            try await writeNDEF(message, verify: verify)
            return
        }
        let encoded = try message.encodedForTag()
        try await authenticateIfPasswordSet()
        try await writeTLV(message: encoded, on: snapshot, verify: verify)
    }
}
