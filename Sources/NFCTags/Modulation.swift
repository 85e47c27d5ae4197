/// A way of talking to tags over the air that a reader can poll with.
public enum Modulation: String, Sendable, Hashable, CaseIterable, Codable {
    /// ISO/IEC 14443 Type A at 106 kbit/s: MIFARE, NTAG, Type 4 tags with SAK bit 5.
    case iso14443A = "iso14443a"
    /// ISO/IEC 14443 Type B at 106 kbit/s.
    case iso14443B = "iso14443b"
    /// FeliCa (JIS X 6319-4) at 212 kbit/s.
    case felica212 = "felica212"
    /// FeliCa at 424 kbit/s.
    case felica424 = "felica424"
    /// Innovision Jewel / Topaz (NFC Forum Type 1).
    case jewel = "jewel"
    /// ISO/IEC 15693 vicinity cards (ICODE SLIX…): NFC Forum Type 5.
    case iso15693 = "iso15693"
}
