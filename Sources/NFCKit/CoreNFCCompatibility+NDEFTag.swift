public import NDEF
public import NFCTags

// CoreNFC's spellings on `NFCNDEFTag` that differ from NFCTags' own: the synchronous
// `isAvailable` and the async `writeNDEF(_:)` throwing `NFCReaderError` (the completion forms
// are in NFCSessionDelegates.swift). docs/porting-from-corenfc.md, "Errors from async tag calls".

extension NFCNDEFTag {
    /// CoreNFC's `NFCNDEFTag.isAvailable`: whether the tag is still in the reader's field,
    /// NFCTags' ``NFCTags/NFCNDEFTag/isPresent()`` answered synchronously (`false` once the tag
    /// left, its session ended, or another tag of the session is the connected one).
    ///
    /// It blocks the calling thread while the reader is asked (one presence check: a command
    /// round trip on libnfc, none on the simulator), as CoreNFC's property is read from
    /// synchronous delegate code; the check runs on the calling thread itself, so it needs no
    /// free thread of Swift's cooperative pool. Async code should `await tag.isPresent()`.
    public var isAvailable: Bool {
        CallerThreadTaskExecutor.run { await isPresent() }
    }

    /// CoreNFC's async `writeNDEF(_:)`: writes `message` (read back to verify), refusing one
    /// with no records as CoreNFC does; the one implementation the completion form
    /// `writeNDEF(_:completionHandler:)` calls too. Preferred over NFCTags' `writeNDEF(_:)`
    /// (which writes an empty message and throws `NFCTagError`) wherever NFCKit is imported;
    /// `writeNDEF(_:verify:)` still writes an empty message.
    /// - Throws: ``NFCReaderError``: ``NFCReaderError/Code/ndefReaderSessionErrorZeroLengthMessage``
    ///   (403) for a message with no records, nothing sent; else the tag's error mapped.
    public func writeNDEF(_ message: NFCNDEFMessage) async throws(NFCReaderError) {
        guard !message.records.isEmpty else {
            throw NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "the message to write has no records")
        }
        do throws(NFCTagError) {
            try await writeNDEF(message, verify: true)
        } catch {
            throw NFCReaderError(error)
        }
    }
}
