import NFCTags

/// The registry of chip models the simulator knows by name: `sim:ntag215`, tag files'
/// `"model"`. One table to extend when a model is added.
public struct TagModel: Sendable, Hashable {
    /// The name users type: `ntag215`.
    public let name: String
    /// One line for help and error messages.
    public let summary: String
    /// Makes a factory-fresh tag with the given UID and options.
    public let make: @Sendable (_ uid: [UInt8], _ options: TagModelOptions) -> any VirtualTag
    /// Restores a tag from a tag file's state; nil when the state does not fit the model.
    public let restore: @Sendable (_ state: TagState) -> (any VirtualTag)?
    /// The UID length this model needs (ISO 14443-A double size: 7; FeliCa IDm, ISO 15693: 8).
    public let uidLength: Int
    /// The UID of the first tag of a `sim:` stack when none is given; later tags count up from
    /// it.
    public let defaultUID: [UInt8]
    /// The UID bytes a stack counts up in, last first: every byte after the first by default;
    /// on a Topaz UID1…UID3, the bytes of the 4-byte UID its commands carry and readers report
    /// (counting in UID6 would give every tag of a stack the same UID0…UID3).
    public let countedUIDBytes: Range<Int>

    /// Creates a registry entry.
    /// - Parameters:
    ///   - defaultUID: the first UID of a stack; by default `04 53 49 4D …` (NXP's manufacturer
    ///     code, "SIM") cut or zero-filled to `uidLength - 1` bytes, then `01`.
    ///   - countedUIDBytes: the bytes a stack counts in; by default `1..<uidLength`.
    /// - Precondition: `uidLength` ≥ 2, `defaultUID`, when given, has `uidLength` bytes, and
    ///   `countedUIDBytes` lies within the UID.
    public init(
        name: String, summary: String, uidLength: Int = 7, defaultUID: [UInt8]? = nil, countedUIDBytes: Range<Int>? = nil,
        make: @escaping @Sendable ([UInt8], TagModelOptions) -> any VirtualTag,
        restore: @escaping @Sendable (TagState) -> (any VirtualTag)?
    ) {
        precondition(uidLength >= 2 && (defaultUID == nil || defaultUID?.count == uidLength))
        precondition(countedUIDBytes.map { !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= uidLength } ?? true)
        self.countedUIDBytes = countedUIDBytes ?? 1..<uidLength
        self.name = name
        self.summary = summary
        self.uidLength = uidLength
        let prefix: [UInt8] = [0x04, 0x53, 0x49, 0x4D] + [UInt8](repeating: 0, count: uidLength)
        self.defaultUID = defaultUID ?? (Array(prefix.prefix(uidLength - 1)) + [0x01])
        self.make = make
        self.restore = restore
    }

    /// Entries are equal when their names are.
    public static func == (lhs: TagModel, rhs: TagModel) -> Bool { lhs.name == rhs.name }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Every known model, in the order help lists them.
    public static let all: [TagModel] = [
        ntag(.ntag213), ntag(.ntag215), ntag(.ntag216),
        ultralight(.mf0ul11), ultralight(.mf0ul21),
        TagModel(
            name: UltralightCTag.modelKey,
            summary: "NXP MIFARE Ultralight C (MF0ICU2), 144 bytes, 3DES authentication, factory key, not formatted",
            make: { uid, _ in UltralightCTag(uid: uid) },
            restore: { UltralightCTag(state: $0) }),
        TagModel(
            name: UltralightAESTag.modelKey,
            summary: "NXP MIFARE Ultralight AES (MF0AES20), 144 bytes, AES-128 authentication, zero keys, not formatted",
            make: { uid, options in
                let tag = UltralightAESTag(uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { UltralightAESTag(state: $0) }),
        TagModel(
            name: "type4", summary: "NFC Forum Type 4 tag (DESFire-like, NDEF application, 2048-byte NDEF file)",
            make: { uid, options in
                let tag = Type4VirtualTag(uid: uid, ndefFileSize: options.ndefFileSize ?? Type4VirtualTag.defaultNDEFFileSize,
                    readOnly: options.readOnly)
                tag.originalitySignature = options.signature
                return tag
            },
            restore: { Type4VirtualTag(state: $0) }),
        TagModel(
            name: "type4b",
            summary: "NFC Forum Type 4 tag over ISO 14443-B (ATQB, ATTRIB, NDEF application, 2048-byte NDEF file)",
            uidLength: 4, defaultUID: [0x0B, 0x53, 0x49, 0x01],
            make: { uid, options in
                Type4VirtualTag(uid: uid, ndefFileSize: options.ndefFileSize ?? Type4VirtualTag.defaultNDEFFileSize,
                    readOnly: options.readOnly, airInterface: .typeB)
            },
            restore: { Type4VirtualTag(state: $0, airInterface: .typeB) }),
        TagModel(
            name: NTAG424VirtualTag.modelKey,
            summary: "NXP NTAG 424 DNA (ISO-DEP, AES-128 secure messaging, SUN/SDM; 256-byte NDEF file, factory keys all zero)",
            make: { uid, options in
                let tag = NTAG424VirtualTag(uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { NTAG424VirtualTag(state: $0) }),
        TagModel(
            name: DESFireVirtualTag.modelKey,
            summary: "NXP MIFARE DESFire EV1 4K (ISO-DEP, native commands, legacy DES authentication; blank, factory PICC key)",
            make: { uid, _ in DESFireVirtualTag(uid: uid) },
            restore: { DESFireVirtualTag(state: $0) }),
        TagModel(
            name: DESFireLightVirtualTag.modelKey,
            summary: "NXP MIFARE DESFire Light as delivered (factory DF name, six fixed files, AES keys zero, EV2 secure messaging; not a Type 4 tag until renamed)",
            make: { uid, options in
                let tag = DESFireLightVirtualTag(uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { DESFireLightVirtualTag(state: $0) }),
        TagModel(
            name: DESFireLightVirtualTag.renamedModelKey,
            summary: "NXP MIFARE DESFire Light renamed for NFC Forum Type 4 (DF D2760000850101, files E103/E104 free, CC not yet written)",
            make: { uid, options in
                let tag = DESFireLightVirtualTag(uid: uid, renamedForTypeFour: true)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { DESFireLightVirtualTag(state: $0) }),
        topaz(.topaz96), topaz(.topaz512),
    ] + [DESFireVirtualTag.Generation.ev2, .ev3].map { generation in
        TagModel(
            name: generation.rawValue,
            summary: "NXP \(generation.modelName) (as desfire-ev1, with its GetVersion and Read_Sig; AuthenticateEV2First and EV2 secure messaging for AES keys)",
            make: { uid, options in
                let tag = DESFireVirtualTag(uid: uid, generation: generation)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { DESFireVirtualTag(state: $0) })
    } + felicaClassicSLIX2 + type5Chips + st25

    /// The model called `name` (case-insensitive), or nil.
    public static func named(_ name: String) -> TagModel? {
        all.first { $0.name == name.lowercased() }
    }

    /// The known names, comma separated: for error messages.
    public static var knownNames: String { all.map(\.name).joined(separator: ", ") }

    private static func topaz(_ model: TopazTag.Model) -> TagModel {
        TagModel(
            name: model.rawValue,
            summary: "Broadcom \(model.productName), NFC Forum Type 1 (Jewel), \(model.memorySize) bytes, NDEF formatted",
            defaultUID: [0x01, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01],
            countedUIDBytes: 1..<Type1Memory.commandUIDLength,
            make: { uid, _ in TopazTag(model, uid: uid) },
            restore: { TopazTag(model, state: $0) })
    }

    private static func ntag(_ model: NTAG21xTag.Model) -> TagModel {
        TagModel(
            name: model.rawValue,
            summary: "NXP \(model.layout.productName), \(model.layout.userPages.count * 4) bytes, NDEF formatted",
            make: { uid, options in
                let tag = NTAG21xTag(model, uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { NTAG21xTag(model, state: $0) })
    }

    private static func ultralight(_ model: UltralightEV1Tag.Model) -> TagModel {
        TagModel(
            name: model.rawValue,
            summary: "NXP \(model.layout.productName), \(model.layout.userPages.count * 4) bytes, not formatted",
            make: { uid, options in
                let tag = UltralightEV1Tag(model, uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { UltralightEV1Tag(model, state: $0) })
    }
}

/// Model-specific options of a `sim:` connection string.
public struct TagModelOptions: Sendable, Hashable {
    /// Type 4: the NDEF file size (NLEN included).
    public var ndefFileSize: Int?
    /// Type 4: a read-only NDEF file.
    public var readOnly: Bool
    /// An NDEF message (encoded) every new tag is delivered with (models adopting
    /// ``NDEFPreloadable``).
    public var ndefMessage: [UInt8]?
    /// The originality signature new tags answer instead of the invalid stand-in: 32 bytes
    /// (NTAG21x, Ultralight EV1, ICODE SLIX2) or 56 (`type4`, `ntag424`, through Read_Sig).
    public var signature: [UInt8]?

    /// Creates options.
    public init(ndefFileSize: Int? = nil, readOnly: Bool = false, ndefMessage: [UInt8]? = nil, signature: [UInt8]? = nil) {
        self.ndefFileSize = ndefFileSize
        self.readOnly = readOnly
        self.ndefMessage = ndefMessage
        self.signature = signature
    }
}

/// A model that can be delivered holding an NDEF message, as a tag vendor would encode it
/// before shipping: written straight into memory, past locks and write access.
public protocol NDEFPreloadable: VirtualTag {
    /// Stores `message` (an encoded NDEF message) as the tag's NDEF content; false when it does
    /// not fit.
    func setNDEFMessage(_ message: [UInt8]) -> Bool
}
