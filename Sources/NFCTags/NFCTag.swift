public import NFCCore

/// A tag in the field, typed by the command set it speaks: CoreNFC's `NFCTag`, for libnfc
/// readers and the simulator alike. Each case exposes its protocol's commands and, through
/// ``ndef``, the NDEF operations of its NFC Forum platform.
public enum NFCTag: Sendable {
    /// MIFARE tags: Ultralight / NTAG (Type 2), Classic, and the ISO-DEP DESFire and Plus (Type 4
    /// NDEF through APDUs); and, family ``MiFareFamily/unknown``, the ISO 14443-A compatible
    /// tags of no MIFARE family, NFC Forum Type 1 among them (Jewel, Topaz 96/512: ``MiFareTag/type1``).
    case miFare(MiFareTag)
    /// ISO-DEP tags (ISO 14443-4, A or B) spoken to with APDUs: Type 4 tags, DESFire, smart cards.
    case iso7816(ISO7816Tag)
    /// FeliCa tags (JIS X 6319-4): Type 3 tags such as FeliCa Lite-S.
    case feliCa(FeliCaTag)
    /// ISO 15693 vicinity tags: Type 5 tags such as ICODE SLIX2.
    case iso15693(ISO15693Tag)

    /// Identifies the target `reader` has just selected and wraps it in its case
    /// (``ChipIdentity/hasNDEF`` is left nil: ``ndef`` tells, with the platform's own detection).
    /// - Throws: ``NFCTagError/Code/notSupported`` for a target no case covers (an ISO 14443-B
    ///   tag without ISO-DEP); ``NFCTagError/Code/connectionLost`` when identification
    ///   had to select the tag again and it was gone, or another tag answered (a stack, a swap):
    ///   what follows would otherwise go to that other tag.
    public static func connect(
        to target: TargetInfo, on reader: any NFCReader, commandTimeout: Duration = .seconds(1)
    ) async throws(NFCTagError) -> NFCTag {
        // Every NDEF operation runs its platform's detection procedure, so identification
        // need not read the CC as well.
        var reselected: TargetInfo?? = nil
        let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false, reselected: &reselected)
        if case .some(let again) = reselected, again?.identifier != target.identifier {
            throw NFCTagError(
                .connectionLost,
                again.map { "another tag (UID \(Hex.encode($0.identifier, uppercase: true))) answered when this one was selected again after identification" }
                    ?? "the tag left the field during identification")
        }
        switch target {
        case .iso14443A(let a) where a.supportsISODEP && (identity.family == .desfire || identity.family == .mifarePlus):
            // As CoreNFC does: DESFire and Plus are MIFARE tags that also take APDUs
            // (``MiFareTag/sendMiFareISO7816Command(_:allowsPaymentApplications:)``).
            return .miFare(MiFareTag(reader: reader, target: a, identity: identity, commandTimeout: commandTimeout))
        case .iso14443A(let a) where a.supportsISODEP:
            return .iso7816(ISO7816Tag(reader: reader, target: target, identity: identity, commandTimeout: commandTimeout))
        case .iso14443A(let a):
            return .miFare(MiFareTag(reader: reader, target: a, identity: identity, commandTimeout: commandTimeout))
        case .iso14443B(let b) where b.supportsISODEP:
            return .iso7816(ISO7816Tag(reader: reader, target: target, identity: identity, commandTimeout: commandTimeout))
        case .iso14443B:
            throw NFCTagError(.notSupported, "ISO 14443-B tags without ISO-DEP (ISO 14443-4) are not supported")
        case .felica(let f):
            return .feliCa(FeliCaTag(reader: reader, target: f, identity: identity, commandTimeout: commandTimeout))
        case .iso15693(let v):
            return .iso15693(ISO15693Tag(reader: reader, target: v, identity: identity, commandTimeout: commandTimeout))
        case .jewel(let j):
            // As CoreNFC reports an ISO 14443-A compatible tag it does not know: MIFARE, family
            // unknown, with the Type 1 platform for its commands and NDEF.
            return .miFare(MiFareTag(type1: Type1Tag(reader: reader, target: j, identity: identity, commandTimeout: commandTimeout)))
        }
    }

    /// What identification found: chip model, platform, memory size.
    public var identity: ChipIdentity {
        switch self {
        case .miFare(let t): t.identity
        case .iso7816(let t): t.identity
        case .feliCa(let t): t.identity
        case .iso15693(let t): t.identity
        }
    }

    /// The identifier users know the tag by: UID, IDm, PUPI or (Type 1, a ``MiFareTag``) UID0…UID3.
    public var identifier: Bytes {
        switch self {
        case .miFare(let t): t.identifier
        case .iso7816(let t): t.identifier
        case .feliCa(let t): t.currentIDm
        case .iso15693(let t): t.identifier
        }
    }

    /// The tag's NDEF operations (its platform's mapping).
    public var ndef: any NFCNDEFTag {
        switch self {
        case .miFare(let t): t
        case .iso7816(let t): t
        case .feliCa(let t): t
        case .iso15693(let t): t
        }
    }
}

/// Every tag is an NDEF tag through its platform (CoreNFC's `NFCNDEFTag` conformance of the
/// tags an NDEF reader session reports): the NDEF calls go to ``NFCTag/ndef``.
extension NFCTag: NFCNDEFPlatformTag {
    /// The tag's NDEF platform, ``NFCTag/ndef``.
    public var ndefPlatform: any NFCNDEFTag { ndef }
    /// Whether the tag is still in the field: ``NFCNDEFTag/isPresent()`` of its case's tag.
    public func isPresent() async -> Bool { await ndef.isPresent() }
}
