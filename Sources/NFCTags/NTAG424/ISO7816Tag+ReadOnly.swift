// ISO7816Tag's read-only judgement lives beside the NTAG 424 DNA code it uses (GetFileSettings),
// so the platform-free NFCTags files compile without NFCCrypto (Scripts/fuzz builds those alone;
// there the Type 4 CC's judgement, NFCNDEFPlatformTag's default, applies).

extension ISO7816Tag {
    /// What keeps the tag from being physically read-only (``NFCNDEFTag/readOnlyGaps()``): the
    /// Type 4 CC's write access (``Type4Tag/readOnlyGaps()``), and on an NTAG 424 DNA
    /// (``ChipFamily/ntagDNA``) the NDEF file's own settings (GetFileSettings, plain): its
    /// write, read-write and change access rights must all be never (`F`), since the chip
    /// enforces those and not the CC (a change right lets its key holder open the file again).
    /// On a DESFire Light, ``DESFireLightNDEFTag/readOnlyGaps()``. On any other ISO-DEP chip the
    /// CC is all that can be read. Reads
    /// only.
    /// - Throws: ``NFCTagError`` as ``Type4Tag/readOnlyGaps()``.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        if identity.family == .desfireLight { return try await ndefPlatform.readOnlyGaps() }
        var gaps = try await type4Platform.readOnlyGaps()
        guard identity.family == .ntagDNA else { return gaps }
        var chip = NTAG424Tag(self)
        let settings: NTAG424FileSettings
        do {
            try await chip.selectApplication()
            settings = try await chip.getFileSettings(.ndef)
        } catch {
            gaps.append("the NTAG 424 DNA NDEF file's settings cannot be read (\(error.reason)): its access rights are unknown")
            return gaps
        }
        let rights = settings.accessRights
        if rights.write != .never || rights.readWrite != .never {
            gaps.append("the NTAG 424 DNA NDEF file's access rights allow writing (write \(rights.write), read-write \(rights.readWrite); both must be never, F)")
        }
        // Whoever may run ChangeFileSettings can open the file again: read-only for good needs
        // the change right never too.
        if rights.change != .never {
            gaps.append("the NTAG 424 DNA NDEF file's settings can still be changed (change \(rights.change); must be never, F)")
        }
        return gaps
    }
}
