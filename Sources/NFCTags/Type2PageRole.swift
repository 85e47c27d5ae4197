/// What a Type 2 tag's page holds, from the memory maps of the datasheets (NTAG213/215/216 8.5,
/// Figure 6 and 8.5.1–8.5.7; NTAG210/212 8.5; MF0ULx1 8.5) and NFC Forum Type 2 Tag 1.0 (6.1:
/// pages 0–2 UID and check bytes with the static lock bytes, page 3 the capability container).
/// `nfctool dump` labels its pages with it. The byte names follow the datasheets, as nfcpy's
/// `tagtool dump` shows them (`UID0-UID2, BCC0`, `LOCK2-LOCK4`, `MIRROR, RFU, MIRROR_PAGE, AUTH0`).
public enum Type2PageRole: String, Sendable, Hashable, CaseIterable, Encodable {
    /// Pages 0–1: the UID and its first check byte (UID0–UID2, BCC0; UID3–UID6).
    case uid
    /// Page 2: the second check byte, the internal byte and static lock bytes 0–1.
    case staticLock
    /// Page 3: the capability container (OTP).
    case capabilityContainer
    /// User memory (the NDEF TLV area).
    case data
    /// The dynamic lock bytes (LOCK2–LOCK4) and an RFU byte.
    case dynamicLock
    /// CFG0: MIRROR (MOD on Ultralight EV1), RFU, MIRROR_PAGE, AUTH0.
    case configuration0
    /// CFG1: ACCESS and RFU bytes (VCTID on Ultralight EV1).
    case configuration1
    /// PWD0–PWD3, the password (reads as zeros).
    case password
    /// PACK0–PACK1, the password acknowledge (reads as zeros), and RFU.
    case passwordAcknowledge
    /// Outside every region the chip's profile knows.
    case other

    /// The region's short name, as a listing shows it: `UID`, `static lock`, `CC`, `data`,
    /// `dynamic lock`, `CFG0`, `CFG1`, `PWD`, `PACK`.
    public var regionName: String {
        switch self {
        case .uid: "UID"
        case .staticLock: "check byte, static lock"
        case .capabilityContainer: "CC"
        case .data: "data"
        case .dynamicLock: "dynamic lock"
        case .configuration0: "CFG0"
        case .configuration1: "CFG1"
        case .password: "PWD"
        case .passwordAcknowledge: "PACK"
        case .other: "other"
        }
    }

    /// The role of `page` on a chip with `profile` (nil: only pages 0–3 are known, the rest is
    /// data).
    public static func of(page: Int, profile: Type2ChipProfile?) -> Type2PageRole {
        switch page {
        case 0, 1: return .uid
        case 2: return .staticLock
        case 3: return .capabilityContainer
        default: break
        }
        guard let profile else { return .data }
        switch page {
        case profile.userPages: return .data
        case profile.dynamicLockPage: return .dynamicLock
        case profile.configurationPage: return .configuration0
        case profile.accessPage: return .configuration1
        case profile.passwordPage: return .password
        case profile.packPage: return .passwordAcknowledge
        default: return .other
        }
    }

    /// The bytes of `page` by name (`UID0-UID2, BCC0`), nil for data pages: the datasheet's
    /// names for the chip of `profile`.
    public static func fields(page: Int, profile: Type2ChipProfile?) -> String? {
        let ultralightEV1 = profile?.model.hasPrefix("MIFARE Ultralight EV1") ?? false
        switch of(page: page, profile: profile) {
        case .uid: return page == 0 ? "UID0-UID2, BCC0" : "UID3-UID6"
        case .staticLock: return "BCC1, INT, LOCK0-LOCK1"
        case .capabilityContainer: return "OTP0-OTP3"
        case .data, .other: return nil
        case .dynamicLock: return ultralightEV1 ? "LOCK2, LOCK3, LOCK4, RFU" : "LOCK2-LOCK4, RFUI"
        case .configuration0:
            if ultralightEV1 { return "MOD, RFU, RFU, AUTH0" }
            return profile?.hasMirror == true ? "MIRROR, RFU, MIRROR_PAGE, AUTH0" : "MIRROR_BYTE, RFU, MIRROR_PAGE, AUTH0"
        case .configuration1: return ultralightEV1 ? "ACCESS, VCTID, RFU, RFU" : "ACCESS, RFU, RFU, RFU"
        case .password: return "PWD0-PWD3"
        case .passwordAcknowledge: return "PACK0-PACK1, RFU, RFU"
        }
    }
}
