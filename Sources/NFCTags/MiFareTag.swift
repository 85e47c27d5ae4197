public import NDEF
public import NFCCore

/// The MIFARE family a tag belongs to, as CoreNFC's `NFCMiFareFamily` (plus Classic, which
/// CoreNFC does not expose).
public enum MiFareFamily: String, Sendable, Hashable, Codable {
    /// Not identified.
    case unknown
    /// MIFARE Ultralight, Ultralight EV1, NTAG21x: NFC Forum Type 2.
    case ultralight
    /// MIFARE Classic 1K/4K/Mini: sectors with Crypto-1 keys; NDEF per NXP AN1304/AN1305.
    case classic
    /// MIFARE Plus.
    case plus
    /// MIFARE DESFire.
    case desfire
}

/// A MIFARE tag (ISO 14443-A): CoreNFC's `NFCMiFareTag`. Raw commands go through
/// ``sendMiFareCommand(_:)``; NDEF through the platform of its family (Type 2 for Ultralight and
/// NTAG, the MAD mapping for Classic).
public struct MiFareTag: Sendable {
    /// The reader that selected the tag.
    public let reader: any NFCReader
    /// What selection returned (UID, ATQA, SAK).
    public let target: ISO14443ATarget
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration
    /// The NTAG21x / Ultralight EV1 password used by the Type 2 operations, when the tag is
    /// protected.
    public var password: NTAGPassword?
    /// The MIFARE Ultralight C 3DES key used by the Type 2 operations, when the tag is
    /// protected.
    public var ultralightCKey: UltralightCKey? = nil
    /// The MIFARE Ultralight AES key (DataProtKey) used by the Type 2 operations, when the tag
    /// is protected.
    public var ultralightAESKey: UltralightAESKey? = nil
    /// How a DESFire is formatted for NDEF: its PICC master key (the factory key by default)
    /// and NDEF file size.
    public var desfireFormat = DESFireFormatOptions()

    /// Wraps a selected target.
    public init(
        reader: any NFCReader, target: ISO14443ATarget, identity: ChipIdentity, password: NTAGPassword? = nil,
        commandTimeout: Duration = .seconds(1)
    ) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.password = password
        self.commandTimeout = commandTimeout
    }

    /// The Type 2 platform of an Ultralight / NTAG tag (lock, format, password, signature), with
    /// ``password`` and ``ultralightCKey``; nil for other families.
    public var type2: Type2Tag? {
        guard mifareFamily == .ultralight else { return nil }
        return platformType2
    }

    /// The Type 2 platform with the password, the Ultralight C key and the UID set.
    private var platformType2: Type2Tag {
        var tag = Type2Tag(reader: reader, identity: identity, password: password, commandTimeout: commandTimeout)
        tag.ultralightCKey = ultralightCKey
        tag.ultralightAESKey = ultralightAESKey
        tag.uid = target.uid.array
        return tag
    }

    /// The family, from the identified platform.
    public var mifareFamily: MiFareFamily {
        switch identity.platform {
        case .type2: .ultralight
        case .mifareClassic: .classic
        default: identity.family == .desfire ? .desfire : identity.family == .mifarePlus ? .plus : .unknown
        }
    }

    /// The UID (4, 7 or 10 bytes).
    public var identifier: Bytes { target.uid }

    /// The historical bytes of the ATS; empty for tags without ISO-DEP.
    public var historicalBytes: Bytes { target.historicalBytes }

    /// Sends a native command (CRC added and checked by the reader) and returns the answer.
    /// - Throws: ``NFCTagError`` `connectionLost` or `tagResponse` (a NAK, with the reader's
    ///   error underneath).
    public func sendMiFareCommand(_ command: Bytes) async throws(NFCTagError) -> Bytes {
        do {
            return try await reader.transceive(command, mode: .standard, timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: "MIFARE command \(command.description)")
        }
    }

    /// The NDEF mapping of this tag's family: Type 2 for Ultralight/NTAG, AN1304 for Classic,
    /// Type 4 for DESFire and Plus in ISO-DEP mode.
    public var ndefPlatform: any NFCNDEFTag {
        switch mifareFamily {
        case .ultralight: platformType2
        case .classic: ClassicNDEFTag(tag: self)
        case .desfire where target.supportsISODEP: DESFireNDEFTag(reader: reader, formatOptions: desfireFormat, commandTimeout: commandTimeout)
        case .plus where target.supportsISODEP: Type4Tag(reader: reader, commandTimeout: commandTimeout)
        default: UnsupportedNDEFTag(reason: "\(identity.model) has no NDEF mapping here", reader: reader)
        }
    }
}

/// NDEF through the family's platform (``ndefPlatform``).
extension MiFareTag: NFCNDEFPlatformTag {
    /// Whether this tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }
}

/// The NDEF operations of a tag without an NDEF mapping: every call throws
/// ``NFCTagError/Code/notSupported`` except ``queryNDEFStatus()``, which answers `.notSupported`.
public struct UnsupportedNDEFTag: NFCNDEFTag {
    /// Why there is no mapping.
    public let reason: String
    /// The reader holding the tag, asked by ``isPresent()``; nil when there is none.
    public let reader: (any NFCReader)?

    /// Creates the stand-in for a tag on `reader`.
    public init(reason: String, reader: (any NFCReader)? = nil) {
        self.reason = reason
        self.reader = reader
    }

    /// Whether the tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader;
    /// `false` without one.
    public func isPresent() async -> Bool { await reader?.isTargetPresent() ?? false }

    /// `.notSupported`, capacity 0.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
    }
    /// Throws `notSupported`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage { throw NFCTagError(.notSupported, reason) }
    /// Throws `notSupported`; nothing is sent.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        throw NFCTagError(.notSupported, reason)
    }
    /// Throws `notSupported`; nothing is sent.
    public func writeLock() async throws(NFCTagError) { throw NFCTagError(.notSupported, reason) }
    /// Throws `notSupported`; nothing is sent.
    public func checkLockable() async throws(NFCTagError) { throw NFCTagError(.notSupported, reason) }
    /// Throws `notSupported`; nothing is sent.
    public func format(force: Bool) async throws(NFCTagError) { throw NFCTagError(.notSupported, reason) }
}
