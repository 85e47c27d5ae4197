import NFCCore
public import NFCTags

/// What every Type 2 chip model shares: it forwards the VirtualTag, tag-file and activation
/// duties to one ``Type2Chip`` engine over the model's memory map. ``NTAG21xTag`` and
/// ``UltralightEV1Tag`` add their model-specific parts.
public class Type2VirtualTag: PersistentVirtualTag, ActivatableVirtualTag {
    /// The engine: memory, lock bits, password, counters.
    var chip: Type2Chip
    /// The model's registry name, stored in tag files (`ntag215`, `ultralight`).
    let registryName: String

    init(chip: Type2Chip, registryName: String) {
        self.chip = chip
        self.registryName = registryName
    }

    /// The memory map in use.
    public var layout: Type2Layout { chip.layout }
    /// The 7-byte UID.
    public var uid: [UInt8] { chip.uid }
    /// All pages as stored (PWD and PACK with their real values), for tests and tag files.
    public var memory: [UInt8] { chip.memory }
    /// The product name: `NTAG215`, `MIFARE Ultralight EV1 (MF0UL11)`.
    public var modelName: String { chip.layout.productName }
    /// ATQA `44 00`, SAK `00`, the 7-byte UID (NTAG21x 9.4, MF0ULx1 9.4).
    public var targetInfo: TargetInfo {
        .iso14443A(ISO14443ATarget(uid: Bytes(chip.uid), atqa: [0x44, 0x00], sak: 0x00))
    }
    /// Answers one Type 2 command frame (without CRC).
    public func respond(to frame: [UInt8]) -> TagAnswer { chip.respond(to: frame) }
    /// Entering the field: authentication and pending commands are reset, lock bits written
    /// since the last activation take effect.
    public func powerOn() { chip.powerOn() }
    /// HLTA: the tag answers nothing until activated again.
    public func halt() { chip.halt() }
    /// REQA/WUPA and selection while in the field: authentication reset, new lock bits take
    /// effect; the NFC counter's once-per-power-on count is kept.
    public func activate() { chip.activate() }
    /// The state a tag file stores.
    public var tagState: TagState {
        TagState(
            model: registryName, uid: Hex.encode(chip.uid), memory: Hex.encode(chip.memory),
            counters: chip.counters, authenticationFailures: chip.authenticationFailures, attributes: chip.attributes)
    }
    /// Grows with every change to persistent state.
    public var stateRevision: Int { chip.revision }
    /// The 32-byte originality signature READ_SIG answers: by default a fixed stand-in derived
    /// from the UID, which is no valid signature (the chip reads as not genuine); set a real or
    /// test-key signature to present a genuine chip.
    public var originalitySignature: [UInt8] {
        get { chip.signature }
        set {
            guard newValue.count == 32 else { return }
            chip.signature = newValue
            chip.revision += 1
        }
    }
}

/// An NXP NTAG213, NTAG215 or NTAG216: an NFC Forum Type 2 tag, byte for byte as the
/// NTAG213/215/216 datasheet (Rev. 3.2) describes it.
///
/// Commands: GET_VERSION, READ (roll-over), FAST_READ, WRITE, COMPATIBILITY_WRITE, READ_CNT,
/// PWD_AUTH, READ_SIG (section 10). Rules: static and dynamic lock bits with block-locking bits
/// (8.5.2, 8.5.3), the OTP capability container (8.5.4), AUTH0/PROT/CFGLCK/AUTHLIM password
/// protection (8.9), the NFC counter (8.6). An unknown command, and any NAK, sends the chip to
/// IDLE: it answers nothing, and has lost authentication, until activated again (9.1). The CC's write-access byte is not enforced (the chip
/// does not). Delivered NDEF formatted: CC `E1 10 12/3E/6D 00`, an empty NDEF TLV `03 00 FE` at page 4
/// (NTAG213: after the factory Lock Control TLV `01 03 A0 0C 34`, datasheet 8.5.6).
///
/// READ_SIG answers ``Type2VirtualTag/originalitySignature``: a fixed stand-in derived from the
/// UID (not valid ECDSA) unless one is given.
public final class NTAG21xTag: Type2VirtualTag, NDEFPreloadable {
    /// The three NTAG21x sizes.
    public enum Model: String, Sendable, Hashable, CaseIterable {
        /// NTAG213: 45 pages, 144 bytes of user memory.
        case ntag213
        /// NTAG215: 135 pages, 504 bytes of user memory.
        case ntag215
        /// NTAG216: 231 pages, 888 bytes of user memory.
        case ntag216

        /// The model's memory map.
        public var layout: Type2Layout {
            switch self {
            case .ntag213: .ntag213
            case .ntag215: .ntag215
            case .ntag216: .ntag216
            }
        }
    }

    /// Which NTAG21x this is.
    public let model: Model

    /// A factory-fresh tag with a 7-byte UID (the first byte is NXP's manufacturer code, 04h).
    /// - Precondition: `uid` has 7 bytes.
    public init(_ model: Model, uid: [UInt8]) {
        precondition(uid.count == 7, "an NTAG21x UID has 7 bytes")
        self.model = model
        super.init(chip: Type2Chip(layout: model.layout, uid: uid), registryName: model.rawValue)
    }

    /// Restores a tag from saved state; nil when the memory or UID does not fit the model.
    public init?(_ model: Model, state: TagState) {
        guard let chip = Type2Chip(layout: model.layout, state: state) else { return nil }
        self.model = model
        super.init(chip: chip, registryName: model.rawValue)
    }

    /// The NFC counter (NTAG21x 8.6).
    public var nfcCounter: UInt32 { chip.counters[0] }
    /// Wrong passwords since the last right one.
    public var authenticationFailures: Int { chip.authenticationFailures }
    /// Whether a PWD_AUTH succeeded since the last activation.
    public var isAuthenticated: Bool { chip.authenticated }


    /// Stores `message` in an NDEF TLV (`03 L V FE`, 3-byte length from 255 bytes on) where the
    /// factory's empty NDEF TLV stands, zeroing the rest of user memory (NFC Forum Type 2 Tag
    /// 2.0, 2.3). False when it does not fit.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let layout = chip.layout
        // Past the factory Lock/Memory Control TLVs (T = 01/02, one-byte length).
        var offset = 0
        let factory = layout.factoryUserData
        while offset + 1 < factory.count, factory[offset] == 0x01 || factory[offset] == 0x02 {
            offset += 2 + Int(factory[offset + 1])
        }
        let tlvStart = 16 + offset
        let length: [UInt8] =
            message.count < 0xFF ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let tlv = [0x03] + length + message + [0xFE]
        let end = layout.userPages.upperBound * 4
        guard tlvStart + tlv.count <= end else { return false }
        chip.memory.replaceSubrange(tlvStart..<end, with: tlv + [UInt8](repeating: 0, count: end - tlvStart - tlv.count))
        chip.revision += 1
        return true
    }
}

/// A MIFARE Ultralight EV1 (MF0UL11 or MF0UL21): a Type 2 chip with password protection, three
/// one-way counters (READ_CNT, INCR_CNT, CHECK_TEARING_EVENT), VCSL and an originality signature, as the MF0ULx1 datasheet
/// (Rev. 3.2) describes it. Delivered not NDEF formatted (page 3 zero, as the datasheet says).
///
/// READ_SIG answers ``Type2VirtualTag/originalitySignature`` (by default a stand-in that is not
/// valid ECDSA).
public final class UltralightEV1Tag: Type2VirtualTag {
    /// The two Ultralight EV1 sizes.
    public enum Model: String, Sendable, Hashable, CaseIterable {
        /// MF0UL11: 20 pages, 48 bytes of user memory.
        case mf0ul11 = "ultralight"
        /// MF0UL21: 41 pages, 128 bytes of user memory.
        case mf0ul21 = "ultralight-ev1-mf0ul21"

        /// The model's memory map.
        public var layout: Type2Layout {
            switch self {
            case .mf0ul11: .ultralightEV1MF0UL11
            case .mf0ul21: .ultralightEV1MF0UL21
            }
        }
    }

    /// Which Ultralight EV1 this is.
    public let model: Model

    /// A factory-fresh tag with a 7-byte UID.
    /// - Precondition: `uid` has 7 bytes.
    public init(_ model: Model, uid: [UInt8]) {
        precondition(uid.count == 7, "an Ultralight EV1 UID has 7 bytes")
        self.model = model
        super.init(chip: Type2Chip(layout: model.layout, uid: uid), registryName: model.rawValue)
    }

    /// Restores a tag from saved state; nil when the memory or UID does not fit the model.
    public init?(_ model: Model, state: TagState) {
        guard let chip = Type2Chip(layout: model.layout, state: state) else { return nil }
        self.model = model
        super.init(chip: chip, registryName: model.rawValue)
    }

    /// The three one-way counters (MF0ULx1 8.7).
    public var counters: [UInt32] { chip.counters }

}
