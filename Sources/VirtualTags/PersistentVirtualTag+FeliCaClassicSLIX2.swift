import NFCCore

// Tag files and `sim:` names for FeliCa Lite-S, MIFARE Classic 1K and ICODE SLIX2.

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
    /// The tag file: UID and the image of memory, block locks, DSFID, AFI and their locks.
    public var tagState: TagState {
        TagState(
            model: "slix2", uid: Hex.encode(targetInfo.identifier), memory: Hex.encode(tagFileImage),
            attributes: originalitySignature == ICodeSLIX2.standInSignature(uid: uid)
                ? nil : [ICodeSLIX2.signatureAttribute: Hex.encode(originalitySignature)])
    }

    /// Changes whenever memory or a lock changes.
    public var stateRevision: Int { (tagFileImage + originalitySignature).hashValue }

    /// Restores a tag from its file; nil when the UID or image does not fit.
    public convenience init?(state: TagState) {
        guard let uid = try? Hex.decode(state.uid), uid.count == 8,
              let image = try? Hex.decode(state.memory), image.count == ICodeSLIX2.tagFileImageSize
        else { return nil }
        self.init(uid: uid)
        self.tagFileImage = image
        if let text = state.attributes?[ICodeSLIX2.signatureAttribute] {
            guard let signature = try? Hex.decode(text), signature.count == 32 else { return nil }
            originalitySignature = signature
        }
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
    ]
}
