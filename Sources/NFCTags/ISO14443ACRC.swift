/// CRC_A of ISO/IEC 14443-3 (Annex B): initial value 0x6363, polynomial x^16 + x^12 + x^5 + 1
/// processed LSB first; the two bytes go on the air low byte first. For hosts that frame type A
/// commands themselves (a PN532 with its CRC handling off) and for the emulators.
public enum ISO14443ACRC {
    /// The two CRC bytes of `bytes`, in air order.
    public static func bytes<C: Collection>(of bytes: C) -> [UInt8] where C.Element == UInt8 {
        var crc: UInt16 = 0x6363
        for byte in bytes {
            var value = byte ^ UInt8(crc & 0xFF)
            value ^= value << 4
            let v = UInt16(value)
            crc = (crc >> 8) ^ (v << 8) ^ (v << 3) ^ (v >> 4)
        }
        return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// `frame` with its CRC appended.
    public static func appending(to frame: [UInt8]) -> [UInt8] { frame + bytes(of: frame) }

    /// Whether `frame` ends with a correct CRC_A over the bytes before it (at least one byte).
    public static func isValid(_ frame: [UInt8]) -> Bool {
        guard frame.count >= 3 else { return false }
        return bytes(of: frame.dropLast(2)) == Array(frame.suffix(2))
    }
}
