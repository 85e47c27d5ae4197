import NFCCore
public import NFCTags

/// An NXP ISO-DEP chip of the MIFARE DESFire family or NTAG 424 DNA as the field sees it: ATQA
/// `44 03`, SAK `20`, its ATS, no raw frames (everything in ISO-DEP), DESELECT as leaving the
/// field, native commands in class `90` and ISO commands in class `00`. The virtual DESFire,
/// DESFire Light and NTAG 424 DNA conform and keep their own commands.
public protocol NXPISODEPVirtualTag: ISODEPVirtualTag {
    /// The chip's ATS.
    static var answerToSelect: [UInt8] { get }
    /// The 7-byte UID.
    var uid: [UInt8] { get }
}

extension NXPISODEPVirtualTag {
    /// The chip's ATS, ``answerToSelect``.
    public var ats: [UInt8] { Self.answerToSelect }
    /// ATQA `44 03` (`0344` as the datasheets write it), SAK `20`, the ATS.
    public var targetInfo: TargetInfo {
        .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x03], sak: 0x20, ats: Bytes(ats)))
    }
    /// Raw frames: none (ISO-DEP only).
    public func respond(to frame: [UInt8]) -> TagAnswer { .silence }
    /// DESELECT: as leaving the field.
    public func halt() { powerOn() }

    /// One command APDU by its class: `90` to `native`, `00` to `iso`, any other
    /// CLASS NOT SUPPORTED; shorter than 4 bytes WRONG LENGTH.
    func route(_ apdu: [UInt8], native: ([UInt8]) -> [UInt8], iso: ([UInt8]) -> [UInt8]) -> [UInt8] {
        guard apdu.count >= 4 else { return sw(StatusWord.wrongLength) }
        switch apdu[0] {
        case NXPNativeCommand.wrappedClass: return native(apdu)
        case 0x00: return iso(apdu)
        default: return sw(StatusWord.classNotSupported)
        }
    }

    /// A status word's two bytes.
    func sw(_ word: UInt16) -> [UInt8] { [UInt8(word >> 8), UInt8(word & 0xFF)] }
}
