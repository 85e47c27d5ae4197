/// The command frames of a Type 1 tag as the NFC Forum lays them out (nfcpy's `tt1.py`):
/// command code, address, data (or zeros), and UID0…UID3; the reader adds the CRC. Each answer
/// has its parser, ``Type1Answer``.
public enum Type1Frame {
    /// RID: `78 00 00 00 00 00 00`.
    public static func readIdentification() -> [UInt8] {
        [Type1Command.readIdentification] + [UInt8](repeating: 0, count: 6)
    }

    /// RALL: `00 00 00` UID.
    public static func readAll(uid: [UInt8]) -> [UInt8] {
        [Type1Command.readAll, 0x00, 0x00] + uid
    }

    /// READ of byte `address` (0…127): `01 ADD 00` UID.
    public static func read(address: Int, uid: [UInt8]) -> [UInt8] {
        [Type1Command.read, UInt8(address & 0x7F), 0x00] + uid
    }

    /// WRITE-E (`erase`) or WRITE-NE of byte `address` (0…127): `53|1A ADD DATA` UID.
    public static func write(address: Int, byte: UInt8, erase: Bool, uid: [UInt8]) -> [UInt8] {
        [erase ? Type1Command.writeErase : Type1Command.writeNoErase, UInt8(address & 0x7F), byte] + uid
    }

    /// RSEG of segment `segment` (0…15): `10 ADDS` eight zeros UID.
    public static func readSegment(_ segment: Int, uid: [UInt8]) -> [UInt8] {
        [Type1Command.readSegment, UInt8((segment & 0x0F) << 4)] + [UInt8](repeating: 0, count: 8) + uid
    }

    /// READ8 of block `block` (0…255): `02 ADD8` eight zeros UID.
    public static func read8(block: Int, uid: [UInt8]) -> [UInt8] {
        [Type1Command.read8, UInt8(block & 0xFF)] + [UInt8](repeating: 0, count: 8) + uid
    }

    /// WRITE-E8 (`erase`) or WRITE-NE8 of block `block`: `54|1B ADD8` eight data bytes UID.
    public static func write8(block: Int, data: [UInt8], erase: Bool, uid: [UInt8]) -> [UInt8] {
        [erase ? Type1Command.writeErase8 : Type1Command.writeNoErase8, UInt8(block & 0xFF)] + data + uid
    }
}

/// Parsers of Type 1 answers: total, each failure an ``NFCTagError`` `tagResponse` with the
/// offset in the answer where it went wrong.
///
/// A byte command's answer comes two ways: `ADD DATA` as the tag sends it (NFC Forum layout,
/// the simulator, a transparent reader), or the data byte alone, as a PN53x's firmware hands
/// it over (libnfc 1.8's `utils/jewel.h` sizes READ and WRITE-E answers at one byte; nfcpy's
/// `tt1.py` takes the last byte). Both are accepted; the address, when present, must match.
public enum Type1Answer {
    /// RID: HR0, HR1 and UID0…UID3.
    public static func identification(_ answer: [UInt8]) throws(NFCTagError) -> (hr0: UInt8, hr1: UInt8, uid: [UInt8]) {
        guard answer.count == 6 else {
            throw NFCTagError(.tagResponse, at: min(answer.count, 6), "RID answer has \(answer.count) bytes, not 6 (HR0 HR1 UID0…UID3)")
        }
        return (answer[0], answer[1], Array(answer[2..<6]))
    }

    /// RALL: HR0, HR1 and the 120 bytes of blocks 0…E.
    public static func readAll(_ answer: [UInt8]) throws(NFCTagError) -> (hr0: UInt8, hr1: UInt8, memory: [UInt8]) {
        let expected = 2 + Type1Memory.staticSize
        guard answer.count == expected else {
            throw NFCTagError(.tagResponse, at: min(answer.count, expected), "RALL answer has \(answer.count) bytes, not \(expected) (HR0 HR1 and blocks 0…E)")
        }
        return (answer[0], answer[1], Array(answer[2...]))
    }

    /// READ, WRITE-E, WRITE-NE: the byte at `address` as the tag now holds it.
    public static func byte(_ answer: [UInt8], address: Int) throws(NFCTagError) -> UInt8 {
        switch answer.count {
        case 1:
            return answer[0]
        case 2:
            guard Int(answer[0]) == address & 0x7F else {
                throw NFCTagError(.tagResponse, at: 0, "answer names address \(hexByte(answer[0])), not \(hexByte(UInt8(address & 0x7F)))")
            }
            return answer[1]
        default:
            throw NFCTagError(.tagResponse, at: min(answer.count, 2), "byte command answer has \(answer.count) bytes, not 2 (ADD DATA) or 1 (DATA)")
        }
    }

    /// READ8, WRITE-E8, WRITE-NE8: the 8 bytes of `block` as the tag now holds them.
    public static func block(_ answer: [UInt8], block: Int) throws(NFCTagError) -> [UInt8] {
        guard answer.count == 1 + Type1Memory.blockSize else {
            throw NFCTagError(.tagResponse, at: min(answer.count, 9), "block command answer has \(answer.count) bytes, not 9 (ADD8 and 8 data bytes)")
        }
        guard Int(answer[0]) == block & 0xFF else {
            throw NFCTagError(.tagResponse, at: 0, "answer names block \(hexByte(answer[0])), not \(hexByte(UInt8(block & 0xFF)))")
        }
        return Array(answer[1...])
    }

    /// RSEG: the 128 bytes of `segment`.
    public static func segment(_ answer: [UInt8], segment: Int) throws(NFCTagError) -> [UInt8] {
        let expected = 1 + Type1Memory.segmentSize
        guard answer.count == expected else {
            throw NFCTagError(.tagResponse, at: min(answer.count, expected), "RSEG answer has \(answer.count) bytes, not \(expected) (ADDS and 128 data bytes)")
        }
        guard answer[0] >> 4 == UInt8(segment & 0x0F) else {
            throw NFCTagError(.tagResponse, at: 0, "answer names segment \(answer[0] >> 4), not \(segment)")
        }
        return Array(answer[1...])
    }
}
