public import NDEF

/// A Type 4 application whose CC file exists but still reads as zeros: a MIFARE DESFire whose
/// AN11004 format was cut between CreateStdDataFile and WriteData, or a DESFire Light renamed
/// for Type 4 and never formatted. ``DESFireNDEFTag`` and ``DESFireLightNDEFTag`` treat it as a
/// tag not formatted rather than a malformed one.
extension Type4Tag {
    /// As ``queryNDEFStatus()``; a CC file of zeros is `.notSupported`, as a tag not formatted.
    public func queryNDEFStatusTakingUnwrittenCapabilityContainer() async throws(NFCTagError) -> NDEFQuery {
        do { return try await queryNDEFStatus() } catch where error.code == .malformedTag {
            guard await hasUnwrittenCapabilityContainer() else { throw error }
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
    }

    /// As ``readNDEF()``; a CC file of zeros is `notNDEFFormatted` with `reason`.
    public func readNDEF(unwrittenCapabilityContainer reason: String) async throws(NFCTagError) -> NDEFMessage {
        do { return try await readNDEF() } catch where error.code == .malformedTag {
            guard await hasUnwrittenCapabilityContainer() else { throw error }
            throw NFCTagError(.notNDEFFormatted, reason)
        }
    }

    /// Whether the CC file reads as all zeros: created (or renamed) and never written.
    public func hasUnwrittenCapabilityContainer() async -> Bool {
        guard let bytes = try? await readCapabilityContainerFile() else { return false }
        return !bytes.isEmpty && bytes.allSatisfy { $0 == 0 }
    }
}
