public import NDEF
import NFCCore

/// The NDEF operations of a MIFARE DESFire: the NFC Forum Type 4 mapping (``Type4Tag``) for
/// query, read, write and lock, and AN11004's formatting (``DESFireTag/formatTypeFour(_:)``)
/// when the NDEF application or its files are missing.
public struct DESFireNDEFTag: NFCNDEFTag {
    /// The Type 4 mapping the NDEF goes through.
    public let type4: Type4Tag
    /// The native commands formatting uses.
    public let desfire: DESFireTag
    /// The PICC master key and NDEF size formatting uses.
    public let formatOptions: DESFireFormatOptions

    /// The NDEF operations of the DESFire `reader` has selected; `hardware`: GetVersion's
    /// hardware part as identification read it (``DESFireTag/hardware``: format and lock then
    /// send no GetVersion of their own).
    public init(
        reader: any NFCReader, formatOptions: DESFireFormatOptions = DESFireFormatOptions(), commandTimeout: Duration = .seconds(1),
        hardware: DESFireVersion.Part? = nil
    ) {
        type4 = Type4Tag(reader: reader, commandTimeout: commandTimeout)
        desfire = DESFireTag(reader: reader, commandTimeout: commandTimeout, hardware: hardware)
        self.formatOptions = formatOptions
    }

    /// Whether this tag is still in the field: as ``Type4Tag/isPresent()``.
    public func isPresent() async -> Bool { await type4.isPresent() }

    /// As ``Type4Tag/queryNDEFStatus()``; a CC file created but never written (a format cut
    /// between CreateStdDataFile and WriteData) is `.notSupported`, as a tag not formatted.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery { try await type4.queryNDEFStatusTakingUnwrittenCapabilityContainer() }
    /// As ``Type4Tag/readNDEF()``; a CC file never written is `notNDEFFormatted`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        try await type4.readNDEF(unwrittenCapabilityContainer: "the NDEF application's CC file was created but never written: format the tag (again)")
    }

    /// Whether the CC file reads as all zeros: created by AN11004's formatting and never written.
    public func hasUnwrittenCapabilityContainer() async -> Bool { await type4.hasUnwrittenCapabilityContainer() }
    /// As ``Type4Tag/writeNDEF(_:verify:)``.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) { try await type4.writeNDEF(message, verify: verify) }
    /// Makes the NDEF file read-only for good: its access rights `EFFF` through ChangeFileSettings
    /// and the CC's write access `FF` (``DESFireTag/lockTypeFour(applicationKey:planning:)``), authenticating with
    /// ``DESFireFormatOptions/applicationKey``.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` (no NDEF application), `authenticationFailed`
    ///   (its key 0 is not ``DESFireFormatOptions/applicationKey``), `tagResponse`, `connectionLost`.
    public func writeLock() async throws(NFCTagError) {
        guard try await queryNDEFStatus().status != .notSupported else {
            throw NFCTagError(.notNDEFFormatted, "the DESFire has no NFC Forum Type 4 application to lock: format it first")
        }
        do { try await desfire.lockTypeFour(applicationKey: formatOptions.applicationKey, planning: formatOptions.planning) } catch { throw error.tagError }
    }

    /// A DESFire answering the EV1 command set can be locked once formatted (``writeLock()``
    /// refuses one without the NDEF application): nothing is sent, nothing thrown. Batch asks
    /// this before formatting.
    public func checkLockable() async throws(NFCTagError) {}

    /// What keeps the tag from being physically read-only: the CC's write access
    /// (``Type4Tag/readOnlyGaps()``) and the NDEF file's own access rights (GetFileSettings,
    /// free to read), which the chip enforces: write, read-write and change must all be never.
    /// - Throws: ``NFCTagError`` as ``Type4Tag/readOnlyGaps()``.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        var gaps = try await type4.readOnlyGaps()
        let mapping = DESFire.TypeFourMapping.self
        do {
            try await desfire.selectApplication(mapping.applicationID)
            let settings = try await desfire.fileSettings(mapping.ndefFileNumber)
            if !DESFireTag.isLockedForGood(settings) {
                gaps.append("the DESFire NDEF file's access rights are \(Hex.encode([UInt8(settings.accessRights >> 8), UInt8(settings.accessRights & 0xFF)], uppercase: true)); write, read-write and change must be never (xFFF)")
            }
        } catch {
            gaps.append("the DESFire NDEF file's settings cannot be read (\(error.reason)): its access rights are unknown")
        }
        return gaps
    }

    /// A DESFire with the NDEF application and its files: as ``Type4Tag/format(force:)``
    /// (emptied, a message kept unless `force`). Without them: AN11004's formatting, which
    /// refuses a DESFire holding other applications unless `force` (they are kept).
    /// - Throws: ``NFCTagError`` `alreadyFormatted` (a message, or other applications, not
    ///   forced), `authenticationFailed` (the PICC master key refused), `invalidParameter` (NDEF
    ///   size), `capacityExceeded`, `tagResponse`, `connectionLost`.
    public func format(force: Bool) async throws(NFCTagError) {
        do {
            try await type4.format(force: force)
            return
        } catch where error.code == .notSupported || error.code == .notNDEFFormatted {
        } catch where error.code == .malformedTag {
            guard await hasUnwrittenCapabilityContainer() else { throw error }
        }
        var options = formatOptions
        options.force = force
        do { try await desfire.formatTypeFour(options) } catch { throw error.tagError }
    }
}
