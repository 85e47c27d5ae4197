public import NDEF
public import NFCCore

/// An ISO-DEP tag spoken to with APDUs (ISO/IEC 7816-4 over ISO 14443-4): CoreNFC's
/// `NFCISO7816Tag`. NDEF goes through the NFC Forum Type 4 mapping.
public struct ISO7816Tag: Sendable {
    /// The reader that selected and activated the tag.
    public let reader: any NFCReader
    /// What selection returned (type A with ATS, or type B).
    public let target: TargetInfo
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration

    /// Wraps a selected, ISO-DEP-activated target.
    public init(reader: any NFCReader, target: TargetInfo, identity: ChipIdentity, commandTimeout: Duration = .seconds(1)) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
    }

    /// The UID (type A) or PUPI (type B).
    public var identifier: Bytes { target.identifier }

    /// The historical bytes of the ATS (type A); empty for type B.
    public var historicalBytes: Bytes {
        if case .iso14443A(let a) = target { return a.historicalBytes }
        return Bytes()
    }

    /// The NDEF mapping (NFC Forum Type 4).
    public var ndefPlatform: any NFCNDEFTag {
        UnsupportedNDEFTag(reason: "Type 4 NDEF is not available yet")
    }
}

extension ISO7816Tag: NFCNDEFTag {
    /// ``NFCNDEFTag/queryNDEFStatus()`` of the Type 4 mapping.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery { try await ndefPlatform.queryNDEFStatus() }
    /// ``NFCNDEFTag/readNDEF()`` of the Type 4 mapping.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage { try await ndefPlatform.readNDEF() }
    /// ``NFCNDEFTag/writeNDEF(_:verify:)`` of the Type 4 mapping.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        try await ndefPlatform.writeNDEF(message, verify: verify)
    }
    /// ``NFCNDEFTag/writeLock()`` of the Type 4 mapping.
    public func writeLock() async throws(NFCTagError) { try await ndefPlatform.writeLock() }
    /// ``NFCNDEFTag/format(force:)`` of the Type 4 mapping.
    public func format(force: Bool) async throws(NFCTagError) { try await ndefPlatform.format(force: force) }
}
