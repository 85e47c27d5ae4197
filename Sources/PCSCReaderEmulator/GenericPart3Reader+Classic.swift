import NFCCore
import NFCTags
import VirtualTags

extension GenericPart3Reader {
    /// A MIFARE Classic card by its SAK (1K `08`, 4K `18`, Mini `09`).
    static func isClassic(_ a: ISO14443ATarget) -> Bool { !a.supportsISODEP && [0x08, 0x18, 0x09].contains(a.sak) }

    /// LOAD KEYS `FF 82 00 slot 06 key`: the key in a volatile slot. A non-volatile key
    /// structure `6986`, a slot other than 00/01 `6B00`, a key of another length `6700`.
    func loadKeys(p1: UInt8, p2: UInt8, _ apdu: [UInt8]) -> [UInt8] {
        guard apdu.count == 5 + PCSCPart3.classicKeyLength, Int(apdu[4]) == PCSCPart3.classicKeyLength else {
            return Self.sw(PCSCPart3.StatusWord.wrongLength)
        }
        guard p1 == PCSCPart3.volatileCardKey else { return Self.sw(PCSCPart3.StatusWord.notAllowed) }
        guard PCSCPart3.keySlots.contains(p2) else { return Self.sw(PCSCPart3.StatusWord.wrongParameter) }
        keys[p2] = Array(apdu[5...])
        return Self.sw(PCSCPart3.StatusWord.success)
    }

    /// GENERAL AUTHENTICATE `FF 86 00 00 05 01 MSB LSB keyType slot`: Crypto-1 authentication of
    /// the block's sector with the slot's key. `9000`; the card refusing the key `6300`; an empty
    /// slot or a key type other than `60`/`61` `6B00`… a card that is no Classic `6A81`.
    func generalAuthenticate(_ tag: any VirtualTag, p1: UInt8, p2: UInt8, _ apdu: [UInt8]) -> [UInt8] {
        guard apdu.count == 10, apdu[4] == 0x05 else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        guard p1 == 0, p2 == 0, apdu[5] == PCSCPart3.generalAuthenticateVersion else { return Self.sw(PCSCPart3.StatusWord.wrongParameter) }
        guard case .iso14443A(let a) = tag.targetInfo, Self.isClassic(a) else { return Self.sw(PCSCPart3.StatusWord.functionNotSupported) }
        let block = Int(apdu[6]) << 8 | Int(apdu[7])
        guard let keyType = ClassicKeyType(rawValue: apdu[8]), let key = keys[apdu[9]], block <= 0xFF else {
            return Self.sw(PCSCPart3.StatusWord.wrongParameter)
        }
        switch field.authenticate(block: UInt8(block), keyType: keyType, key: key) {
        case .authenticated(true): return Self.sw(PCSCPart3.StatusWord.success)
        default: return Self.sw(PCSCPart3.StatusWord.noInformation)
        }
    }

    /// READ BINARY of one Classic block (Le 16 or 0): the card's READ. A block of a sector not
    /// authenticated, or whose access conditions refuse it, `6982`.
    func classicRead(block: Int, le: Int) -> [UInt8] {
        guard le == 0 || le == PCSCPart3.classicBlockLength else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        guard block <= 0xFF else { return Self.sw(PCSCPart3.StatusWord.addressOutOfRange) }
        switch field.exchange(frame: [ClassicCommand.read, UInt8(block)]) {
        case .frame(.data(let bytes)) where bytes.count == PCSCPart3.classicBlockLength:
            return bytes + Self.sw(PCSCPart3.StatusWord.success)
        case .frame(.nak): return Self.sw(PCSCPart3.StatusWord.securityNotSatisfied)
        default: return Self.sw(PCSCPart3.StatusWord.noInformation)
        }
    }

    /// UPDATE BINARY of one Classic block (16 bytes): the card's two-phase WRITE. Refused
    /// (not authenticated, access conditions, block 0) `6982`.
    func classicWrite(block: Int, _ data: [UInt8]) -> [UInt8] {
        guard data.count == PCSCPart3.classicBlockLength else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        guard block <= 0xFF else { return Self.sw(PCSCPart3.StatusWord.addressOutOfRange) }
        switch field.exchange(frame: [ClassicCommand.write, UInt8(block)]) {
        case .frame(.ack): break
        case .frame(.nak): return Self.sw(PCSCPart3.StatusWord.securityNotSatisfied)
        default: return Self.sw(PCSCPart3.StatusWord.noInformation)
        }
        switch field.exchange(frame: data) {
        case .frame(.ack): return Self.sw(PCSCPart3.StatusWord.success)
        case .frame(.nak): return Self.sw(PCSCPart3.StatusWord.securityNotSatisfied)
        default: return Self.sw(PCSCPart3.StatusWord.noInformation)
        }
    }
}
