public import NDEF
public import NFCCore

/// An ISO 15693 vicinity tag: CoreNFC's `NFCISO15693Tag`. NDEF goes through the NFC Forum
/// Type 5 mapping.
public struct ISO15693Tag: Sendable {
    /// The reader that inventoried the tag.
    public let reader: any NFCReader
    /// What the inventory returned (UID, DSFID).
    public let target: ISO15693Target
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration

    /// Wraps an inventoried target.
    public init(reader: any NFCReader, target: ISO15693Target, identity: ChipIdentity, commandTimeout: Duration = .seconds(1)) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
    }

    /// The 8-byte UID, most significant byte first.
    public var identifier: Bytes { target.uid }

    /// The NDEF mapping (NFC Forum Type 5).
    public var ndefPlatform: any NFCNDEFTag {
        UnsupportedNDEFTag(reason: "Type 5 NDEF is not available yet")
    }
}

extension ISO15693Tag: NFCNDEFTag {
    /// ``NFCNDEFTag/queryNDEFStatus()`` of the Type 5 mapping.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery { try await ndefPlatform.queryNDEFStatus() }
    /// ``NFCNDEFTag/readNDEF()`` of the Type 5 mapping.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage { try await ndefPlatform.readNDEF() }
    /// ``NFCNDEFTag/writeNDEF(_:verify:)`` of the Type 5 mapping.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        try await ndefPlatform.writeNDEF(message, verify: verify)
    }
    /// ``NFCNDEFTag/writeLock()`` of the Type 5 mapping.
    public func writeLock() async throws(NFCTagError) { try await ndefPlatform.writeLock() }
    /// ``NFCNDEFTag/format(force:)`` of the Type 5 mapping.
    public func format(force: Bool) async throws(NFCTagError) { try await ndefPlatform.format(force: force) }
}
