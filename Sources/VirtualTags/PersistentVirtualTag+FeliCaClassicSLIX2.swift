public import NFCTags
import NFCCore

// Tag files and `sim:` names for FeliCa Lite-S, MIFARE Classic 1K and the ICODE SLIX family.

extension FeliCaLiteS: PersistentVirtualTag {
    /// The tag file: IDm and the 28 blocks.
    public var tagState: TagState {
        TagState(model: "felica-lite-s", uid: Hex.encode(targetInfo.identifier), memory: Hex.encode(memory))
    }

    /// Changes whenever a block changes (the model keeps no counter of its own).
    public var stateRevision: Int { memory.hashValue }

    /// Restores a tag from its file; nil when the IDm or memory does not fit.
    public convenience init?(state: TagState) {
        guard let idm = try? Hex.decode(state.uid), idm.count == 8,
              let memory = try? Hex.decode(state.memory), memory.count == FeliCaLiteS().memory.count
        else { return nil }
        self.init(idm: idm, memory: memory)
    }

    /// A fresh tag with a fixed IDm, to size memory.
    private convenience init() { self.init(idm: [0x01, 0x2E, 0, 0, 0, 0, 0, 0]) }
}

extension MifareClassic1K: PersistentVirtualTag {
    /// The tag file: UID and all 1024 bytes, keys included.
    public var tagState: TagState {
        TagState(model: "classic1k", uid: Hex.encode(targetInfo.identifier), memory: Hex.encode(memory))
    }

    /// Changes whenever a block changes.
    public var stateRevision: Int { memory.hashValue }

    /// Restores a card from its file; nil when the UID or memory does not fit.
    public convenience init?(state: TagState) {
        guard let uid = try? Hex.decode(state.uid), uid.count == 4,
              let memory = try? Hex.decode(state.memory), memory.count == 1024
        else { return nil }
        self.init(uid: uid, memory: memory)
    }
}

extension ICodeSLIX2: PersistentVirtualTag {
    /// The registry name of each family member: `slix2`, `icode-slix`, `icode-slix-s`, `icode-slix-l`.
    public static func modelKey(_ variant: ICodeVariant) -> String {
        switch variant {
        case .slix2: "slix2"
        case .slix: "icode-slix"
        case .slixS: "icode-slix-s"
        case .slixL: "icode-slix-l"
        // Modelled by ``Type5Chip``: never a ``ICodeSLIX2`` tag file.
        case .ntag5Switch: "ntag5"
        case .ntag5LinkOrBoost: "ntag5-link"
        }
    }

    /// The tag file: UID, the image of memory, block locks, DSFID, AFI and their locks; the
    /// signature and the security state (``ICodeSecurityState``) as attributes when they differ
    /// from a fresh chip's.
    public var tagState: TagState {
        var attributes = security.attributes(variant: variant)
        if originalitySignature != ICodeSLIX2.standInSignature(uid: uid) {
            attributes[ICodeSLIX2.signatureAttribute] = Hex.encode(originalitySignature)
        }
        return TagState(
            model: Self.modelKey(variant), uid: Hex.encode(targetInfo.identifier), memory: Hex.encode(tagFileImage),
            attributes: attributes.isEmpty ? nil : attributes)
    }

    /// Changes whenever memory, a lock or the security state changes.
    public var stateRevision: Int { Hasher.combined(tagFileImage + originalitySignature, security) }

    /// Restores a tag from its file; nil when the model, UID, image or security state does not fit.
    public convenience init?(state: TagState) {
        guard let variant = ICodeVariant.allCases.first(where: { !$0.isNTAG5 && Self.modelKey($0) == state.model }),
              let uid = try? Hex.decode(state.uid), uid.count == 8,
              let image = try? Hex.decode(state.memory), image.count == variant.blockCount * (variant.blockSize + 1) + 3,
              let security = ICodeSecurityState(attributes: state.attributes, variant: variant)
        else { return nil }
        self.init(uid: uid, variant: variant)
        self.tagFileImage = image
        self.security = security
        if let text = state.attributes?[ICodeSLIX2.signatureAttribute] {
            guard let signature = try? Hex.decode(text), signature.count == 32 else { return nil }
            originalitySignature = signature
        }
    }
}

extension Hasher {
    /// The hash of two values together.
    static func combined(_ first: some Hashable, _ second: some Hashable) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        hasher.combine(second)
        return hasher.finalize()
    }
}

extension TagModel {
    /// FeliCa Lite-S, MIFARE Classic 1K and ICODE SLIX2 entries.
    static let felicaClassicSLIX2: [TagModel] = [
        TagModel(
            name: "felica-lite-s", summary: "Sony FeliCa Lite-S (RC-S966), NFC Forum Type 3, NDEF formatted",
            uidLength: 8, defaultUID: [0x01, 0x2E, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01],
            make: { uid, _ in FeliCaLiteS(idm: uid) }, restore: { FeliCaLiteS(state: $0) }),
        TagModel(
            name: "classic1k", summary: "NXP MIFARE Classic 1K, transport keys FFFFFFFFFFFF",
            uidLength: 4, defaultUID: [0x53, 0x49, 0x4D, 0x01],
            make: { uid, _ in MifareClassic1K(uid: uid) }, restore: { MifareClassic1K(state: $0) }),
        TagModel(
            name: "slix2", summary: "NXP ICODE SLIX2 (ISO 15693), 320 bytes, NFC Forum Type 5 formatted",
            uidLength: 8, defaultUID: [0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x01],
            make: { uid, options in
                let tag = ICodeSLIX2(uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { ICodeSLIX2(state: $0) }),
        icode(.slix, "NXP ICODE SLIX (SL2S2002, ISO 15693), 112 bytes, EAS/AFI password, NFC Forum Type 5 formatted",
              uid: [0xE0, 0x04, 0x01, 0x10, 0x53, 0x49, 0x4D, 0x01]),
        icode(.slixS, "NXP ICODE SLIX-S (SL2S5302, ISO 15693), 160 bytes, read/write/privacy passwords, page protection, Type 5 formatted",
              uid: [0xE0, 0x04, 0x02, 0x10, 0x53, 0x49, 0x4D, 0x01]),
        icode(.slixL, "NXP ICODE SLIX-L (SL2S5002, ISO 15693), 32 bytes, privacy password, NFC Forum Type 5 formatted",
              uid: [0xE0, 0x04, 0x03, 0x10, 0x53, 0x49, 0x4D, 0x01]),
    ]

    /// An ICODE family member other than the SLIX2.
    private static func icode(_ variant: ICodeVariant, _ summary: String, uid defaultUID: [UInt8]) -> TagModel {
        TagModel(
            name: ICodeSLIX2.modelKey(variant), summary: summary, uidLength: 8, defaultUID: defaultUID,
            make: { uid, _ in ICodeSLIX2(uid: uid, variant: variant) },
            restore: { ICodeSLIX2(state: $0) })
    }
}
