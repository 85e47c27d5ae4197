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
///
/// As CoreNFC reports an ISO 14443-A compatible tag it does not know as a MIFARE tag of family
/// `.unknown`, ``NFCTag/connect(to:on:commandTimeout:)`` reports an NFC Forum Type 1 tag
/// (Innovision Jewel, Broadcom Topaz 96/512, found on the Jewel modulation) as a `MiFareTag`
/// with ``mifareFamily`` ``MiFareFamily/unknown``, ``ChipIdentity/platform``
/// ``NFCPlatform/type1`` and its ``Type1Tag`` in ``type1``, which is its ``ndefPlatform``.
public struct MiFareTag: Sendable {
    /// The reader that selected the tag.
    public let reader: any NFCReader
    /// What selection returned (UID, ATQA, SAK).
    ///
    /// For a Type 1 tag (``type1`` not nil), the Jewel target's data: ``ISO14443ATarget/uid`` is
    /// UID0…UID3 (``JewelTarget/id``), ``ISO14443ATarget/atqa`` is SENS_RES in arrival order
    /// (``JewelTarget/sensRes`` reversed, as libnfc gives it most significant byte first: `00 0C`
    /// for a Topaz, whose ``ISO14443ATarget/atqaValue`` is `0C00`), ``ISO14443ATarget/sak`` is 0 and ``ISO14443ATarget/ats`` empty (a Jewel has
    /// no anticollision, SEL_RES or ISO-DEP). Such a tag is selected again on the Jewel
    /// modulation (``Type1Tag/target``), never as an ISO 14443-A tag.
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

    /// The Type 1 platform when the tag is a Jewel / Topaz, else nil.
    private let type1Platform: Type1Tag?

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
        self.type1Platform = nil
    }

    /// Wraps a selected NFC Forum Type 1 tag (family ``MiFareFamily/unknown``); ``target``
    /// holds the Jewel target's data as its documentation says.
    public init(type1: Type1Tag) {
        self.reader = type1.reader
        let jewel = type1.target
        self.target = ISO14443ATarget(uid: jewel.id, atqa: Bytes(jewel.sensRes.array.reversed()), sak: 0)
        self.identity = type1.identity
        self.password = nil
        self.commandTimeout = type1.commandTimeout
        self.type1Platform = type1
    }

    /// The Type 1 platform of a Jewel / Topaz (its commands, lock, format), with the Jewel
    /// target it was selected as; nil for other tags.
    public var type1: Type1Tag? {
        guard var tag = type1Platform else { return nil }
        tag.commandTimeout = commandTimeout
        return tag
    }

    /// The Type 2 platform of an Ultralight / NTAG tag (lock, format, password, signature), with
    /// ``password`` and ``ultralightCKey``; nil for other families.
    public var type2: Type2Tag? {
        guard mifareFamily == .ultralight, type1Platform == nil else { return nil }
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

    /// The family, from the identified platform (``MiFareFamily/unknown`` for a Type 1 tag).
    public var mifareFamily: MiFareFamily {
        if type1Platform != nil { return .unknown }
        return switch identity.platform {
        case .type2: .ultralight
        case .mifareClassic: .classic
        default: identity.family == .desfire ? .desfire : identity.family == .mifarePlus ? .plus : .unknown
        }
    }

    /// The UID (4, 7 or 10 bytes).
    public var identifier: Bytes { target.uid }

    /// The native DESFire commands of a MIFARE DESFire in ISO-DEP mode, carrying the GetVersion
    /// hardware part identification read (``DESFireTag/hardware``: what depends on the chip's
    /// generation sends no second GetVersion); nil for other families.
    public var desfire: DESFireTag? {
        guard mifareFamily == .desfire, target.supportsISODEP else { return nil }
        return DESFireTag(reader: reader, commandTimeout: commandTimeout, hardware: identity.hardwareVersion)
    }

    /// The historical bytes of the ATS; empty for tags without ISO-DEP.
    public var historicalBytes: Bytes { target.historicalBytes }

    /// Sends a native command (CRC added and checked by the reader) and returns the answer. For
    /// a Type 1 tag, the command is a whole Type 1 frame (command, address, data, UID0…UID3, as
    /// ``Type1Frame`` builds them), sent as ``Type1Tag`` sends its own.
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
    /// Type 4 for DESFire and Plus in ISO-DEP mode, the ``Type1Tag`` for a Type 1 tag.
    public var ndefPlatform: any NFCNDEFTag {
        if let type1 { return type1 }
        return switch mifareFamily {
        case .ultralight: platformType2
        case .classic: ClassicNDEFTag(tag: self)
        case .desfire where target.supportsISODEP:
            DESFireNDEFTag(reader: reader, formatOptions: desfireFormat, commandTimeout: commandTimeout, hardware: identity.hardwareVersion)
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
