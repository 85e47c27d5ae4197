public import NFCCore

/// What a reader learned about a tag while selecting it (anticollision and activation).
public enum TargetInfo: Sendable, Hashable {
    /// An ISO 14443-A tag.
    case iso14443A(ISO14443ATarget)
    /// An ISO 14443-B tag.
    case iso14443B(ISO14443BTarget)
    /// A FeliCa tag.
    case felica(FeliCaTarget)
    /// A Jewel / Topaz tag.
    case jewel(JewelTarget)
    /// An ISO 15693 tag.
    case iso15693(ISO15693Target)

    /// The identifier users know the tag by: UID, IDm, PUPI or Jewel ID.
    public var identifier: Bytes {
        switch self {
        case .iso14443A(let t): t.uid
        case .iso14443B(let t): t.pupi
        case .felica(let t): t.idm
        case .jewel(let t): t.id
        case .iso15693(let t): t.uid
        }
    }

    /// The modulation the tag answered on.
    public var modulation: Modulation {
        switch self {
        case .iso14443A: .iso14443A
        case .iso14443B: .iso14443B
        case .felica(let t): t.bitRate == 424 ? .felica424 : .felica212
        case .jewel: .jewel
        case .iso15693: .iso15693
        }
    }
}

/// An ISO 14443-A tag as selected (ISO/IEC 14443-3 anticollision, -4 activation).
public struct ISO14443ATarget: Sendable, Hashable {
    /// The UID: 4, 7 or 10 bytes, cascade tags removed.
    public var uid: Bytes
    /// ATQA (SENS_RES), the two bytes in the order they arrive over the air (least significant
    /// first): NTAG21x `44 00`, MIFARE Classic 1K `04 00`. libnfc's `nfc-list` and the PN532
    /// show them the other way round (`00 44`); ``atqaValue`` is the number either way.
    public var atqaValue: UInt16 { atqa.count == 2 ? UInt16(atqa[1]) << 8 | UInt16(atqa[0]) : 0 }
    /// ATQA (SENS_RES) in arrival order; see ``atqaValue``.
    public var atqa: Bytes
    /// SAK (SEL_RES) of the last cascade level: bit 5 (0x20) set means ISO 14443-4 capable.
    public var sak: UInt8
    /// The answer to RATS when the tag was activated for ISO-DEP, else empty.
    public var ats: Bytes

    /// Creates target information.
    public init(uid: Bytes, atqa: Bytes, sak: UInt8, ats: Bytes = Bytes()) {
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
    }

    /// Whether the tag speaks ISO-DEP (ISO 14443-4): SAK bit 6 (0x20).
    public var supportsISODEP: Bool { sak & 0x20 != 0 }

    /// The historical bytes of the ATS (ISO 14443-4, 5.2): what follows TL, T0 and the
    /// interface bytes T0 announces. Empty when there is no ATS or it is malformed.
    public var historicalBytes: Bytes {
        guard ats.count >= 2 else { return Bytes() }
        let t0 = ats[1]
        var start = 2
        if t0 & 0x10 != 0 { start += 1 }  // TA(1)
        if t0 & 0x20 != 0 { start += 1 }  // TB(1)
        if t0 & 0x40 != 0 { start += 1 }  // TC(1)
        let end = min(Int(ats[0]), ats.count)  // TL counts itself
        guard start <= end else { return Bytes() }
        return ats[start..<end]
    }
}

/// An ISO 14443-B tag as selected (ATQB fields, ISO/IEC 14443-3 7.9).
public struct ISO14443BTarget: Sendable, Hashable {
    /// Pseudo-unique PICC identifier, 4 bytes.
    public var pupi: Bytes
    /// Application data, 4 bytes.
    public var applicationData: Bytes
    /// Protocol info, 3 bytes.
    public var protocolInfo: Bytes

    /// Creates target information.
    public init(pupi: Bytes, applicationData: Bytes, protocolInfo: Bytes) {
        self.pupi = pupi
        self.applicationData = applicationData
        self.protocolInfo = protocolInfo
    }

    /// Whether the card speaks ISO-DEP (ISO/IEC 14443-4): protocol info byte 2, protocol type
    /// bit 0 (ISO/IEC 14443-3 §7.9.4; libnfc's `PI_ISO14443_4_SUPPORTED` tests the same bit).
    public var supportsISODEP: Bool { protocolInfo.count >= 2 && protocolInfo[1] & 0x01 != 0 }

    /// Whether the card supports a CID (protocol info byte 3, FO bit 0; ISO/IEC 14443-3 §7.9.4).
    public var supportsCID: Bool { protocolInfo.count >= 3 && protocolInfo[2] & 0x01 != 0 }
}

/// A FeliCa tag as polled (JIS X 6319-4 Polling response).
public struct FeliCaTarget: Sendable, Hashable {
    /// IDm, 8 bytes: manufacturer code and card identification number.
    public var idm: Bytes
    /// PMm, 8 bytes: IC code and maximum response time parameters.
    public var pmm: Bytes
    /// The system code asked for and answered (e.g. 0x12FC for NFC Forum Type 3), if known.
    public var systemCode: UInt16?
    /// 212 or 424 kbit/s.
    public var bitRate: Int

    /// Creates target information.
    public init(idm: Bytes, pmm: Bytes, systemCode: UInt16? = nil, bitRate: Int = 212) {
        self.idm = idm
        self.pmm = pmm
        self.systemCode = systemCode
        self.bitRate = bitRate
    }
}

/// A Jewel / Topaz tag.
public struct JewelTarget: Sendable, Hashable {
    /// SENS_RES, 2 bytes.
    public var sensRes: Bytes
    /// The 4-byte ID.
    public var id: Bytes

    /// Creates target information.
    public init(sensRes: Bytes, id: Bytes) {
        self.sensRes = sensRes
        self.id = id
    }
}

/// An ISO 15693 tag as inventoried.
public struct ISO15693Target: Sendable, Hashable {
    /// The 8-byte UID, most significant byte first (`E0 04 …` for NXP).
    public var uid: Bytes
    /// Data storage format identifier.
    public var dsfid: UInt8

    /// Creates target information.
    public init(uid: Bytes, dsfid: UInt8 = 0) {
        self.uid = uid
        self.dsfid = dsfid
    }
}
