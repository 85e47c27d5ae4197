public import NDEF
public import NFCCore

/// A FeliCa tag (JIS X 6319-4): CoreNFC's `NFCFeliCaTag`. NDEF goes through the NFC Forum
/// Type 3 mapping.
public struct FeliCaTag: Sendable {
    /// The reader that polled the tag.
    public let reader: any NFCReader
    /// What polling returned (IDm, PMm, system code).
    public let target: FeliCaTarget
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration

    /// Wraps a polled target.
    public init(reader: any NFCReader, target: FeliCaTarget, identity: ChipIdentity, commandTimeout: Duration = .seconds(1)) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
    }

    /// The IDm of the system polled.
    public var currentIDm: Bytes { target.idm }

    /// The system code polled for, when known.
    public var currentSystemCode: UInt16? { target.systemCode }

    /// The NDEF mapping (NFC Forum Type 3).
    public var ndefPlatform: any NFCNDEFTag {
        UnsupportedNDEFTag(reason: "Type 3 NDEF is not available yet")
    }
}

extension FeliCaTag: NFCNDEFTag {
    /// ``NFCNDEFTag/queryNDEFStatus()`` of the Type 3 mapping.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery { try await ndefPlatform.queryNDEFStatus() }
    /// ``NFCNDEFTag/readNDEF()`` of the Type 3 mapping.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage { try await ndefPlatform.readNDEF() }
    /// ``NFCNDEFTag/writeNDEF(_:verify:)`` of the Type 3 mapping.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        try await ndefPlatform.writeNDEF(message, verify: verify)
    }
    /// ``NFCNDEFTag/writeLock()`` of the Type 3 mapping.
    public func writeLock() async throws(NFCTagError) { try await ndefPlatform.writeLock() }
    /// ``NFCNDEFTag/format(force:)`` of the Type 3 mapping.
    public func format(force: Bool) async throws(NFCTagError) { try await ndefPlatform.format(force: force) }
}
