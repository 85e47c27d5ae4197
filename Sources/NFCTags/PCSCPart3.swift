public import NFCCore

/// PC/SC Part 3 (contactless readers, "Storage card" pseudo-APDUs and the ATR a reader builds
/// for a contactless card): the one place its constants live, for the PC/SC reader and the
/// virtual PC/SC reader alike. Pseudo-APDUs have class `FF`; the reader answers them itself.
public enum PCSCPart3 {
    /// The class byte of every pseudo-APDU.
    public static let pseudoClass: UInt8 = 0xFF
    /// GET DATA: `FF CA P1 00 Le`; P1 ``getDataUID`` or ``getDataATS``.
    public static let getData: UInt8 = 0xCA
    /// GET DATA P1: the card's UID (ISO 14443-A UID, PUPI, IDm, ISO 15693 UID).
    public static let getDataUID: UInt8 = 0x00
    /// GET DATA P1: the ATS of an ISO 14443-A card.
    public static let getDataATS: UInt8 = 0x01
    /// READ BINARY: `FF B0 MSB LSB Le`, the address a Type 2 page or an ISO 15693 block.
    public static let readBinary: UInt8 = 0xB0
    /// UPDATE BINARY: `FF D6 MSB LSB Lc data`.
    public static let updateBinary: UInt8 = 0xD6
    /// The most a READ BINARY of a Type 2 tag returns (the tag's READ: 4 pages).
    public static let type2ReadLength = 16
    /// A Type 2 page, the unit of UPDATE BINARY on a Type 2 tag.
    public static let type2PageLength = 4

    /// The registered application provider identifier of PC/SC in a storage card's ATR.
    public static let rid: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]

    /// Status words a Part 3 reader answers pseudo-APDUs with.
    public enum StatusWord {
        /// Success.
        public static let success: UInt16 = 0x9000
        /// Warning: end of data reached before Le bytes (the data is shorter than asked).
        public static let endReached: UInt16 = 0x6282
        /// Error: no information given (the operation failed, e.g. the card did not answer).
        public static let noInformation: UInt16 = 0x6300
        /// Error: memory failure (a write did not take).
        public static let memoryFailure: UInt16 = 0x6581
        /// Error: wrong length (Lc or Le).
        public static let wrongLength: UInt16 = 0x6700
        /// Error: command incompatible with the card.
        public static let commandIncompatible: UInt16 = 0x6981
        /// Error: security status not satisfied (locked, or protected by a password).
        public static let securityNotSatisfied: UInt16 = 0x6982
        /// Error: command not allowed.
        public static let notAllowed: UInt16 = 0x6986
        /// Error: function not supported.
        public static let functionNotSupported: UInt16 = 0x6A81
        /// Error: address out of range (file or block not found).
        public static let addressOutOfRange: UInt16 = 0x6A82
        /// Error: wrong parameter P1 or P2.
        public static let wrongParameter: UInt16 = 0x6B00
        /// Error: wrong Le; the low byte of `6Cxx` gives the exact length.
        public static let wrongLeHigh: UInt8 = 0x6C
        /// Error: instruction not supported.
        public static let instructionNotSupported: UInt16 = 0x6D00

        /// A short name of a status word, for error messages.
        public static func describe(_ sw: UInt16) -> String {
            let name: String =
                switch sw {
                case success: "success"
                case endReached: "end of data reached before Le bytes"
                case noInformation: "no information given"
                case memoryFailure: "memory failure"
                case wrongLength: "wrong length"
                case commandIncompatible: "command incompatible"
                case securityNotSatisfied: "security status not satisfied"
                case notAllowed: "command not allowed"
                case functionNotSupported: "function not supported"
                case addressOutOfRange: "address out of range"
                case wrongParameter: "wrong parameter P1-P2"
                case instructionNotSupported: "instruction not supported"
                default: sw >> 8 == UInt16(wrongLeHigh) ? "wrong Le, exact length \(sw & 0xFF)" : "unknown"
                }
            return "\(Hex.encode([UInt8(sw >> 8), UInt8(sw & 0xFF)]).uppercased()) (\(name))"
        }
    }

    /// The standard byte SS of a storage card's ATR: which air interface the card uses.
    public enum Standard {
        /// No information given.
        public static let none: UInt8 = 0x00
        /// ISO/IEC 14443-A, part 3 (MIFARE Classic, Ultralight, NTAG).
        public static let iso14443APart3: UInt8 = 0x03
        /// ISO/IEC 14443-B, part 3.
        public static let iso14443BPart3: UInt8 = 0x07
        /// ISO/IEC 15693, part 3 (ICODE SLI/SLIX/SLIX2, Tag-it…).
        public static let iso15693Part3: UInt8 = 0x0B
        /// FeliCa.
        public static let felica: UInt8 = 0x11
    }

    /// The card name bytes NN NN of a storage card's ATR (PC/SC Part 3 supplemental document).
    public enum CardName {
        /// No information given.
        public static let none: UInt16 = 0x0000
        /// MIFARE Classic 1K.
        public static let mifareClassic1K: UInt16 = 0x0001
        /// MIFARE Classic 4K.
        public static let mifareClassic4K: UInt16 = 0x0002
        /// MIFARE Ultralight (readers give it for NTAG21x too).
        public static let mifareUltralight: UInt16 = 0x0003
        /// MIFARE Mini.
        public static let mifareMini: UInt16 = 0x0026
    }
}

/// The ATR a PC/SC Part 3 reader builds for a contactless card: `3B 8n 80 01`, n historical
/// bytes, TCK (the exclusive-or of every byte after `3B`). For a storage card the historical
/// bytes are `80 4F 0C`, the PC/SC RID, SS, NN NN and four zero bytes; for an ISO-DEP card they
/// are the ATS's historical bytes.
public enum PCSCContactlessATR: Sendable, Hashable {
    /// A storage card: standard byte SS and card name NN NN.
    case storageCard(standard: UInt8, cardName: UInt16)
    /// An ISO 14443-4 card: the historical bytes of its ATS.
    case isoDEP(historicalBytes: Bytes)

    /// Reads an ATR.
    /// - Throws: ``NFCTagError`` `tagResponse` with the offset of the first byte that does not
    ///   fit the contactless layout.
    public init(parsing atr: Bytes) throws(NFCTagError) {
        let a = atr.array
        guard a.count >= 5 else { throw NFCTagError(.tagResponse, at: a.count, "an ATR of \(a.count) bytes is too short for a contactless card's") }
        guard a[0] == 0x3B else { throw NFCTagError(.tagResponse, at: 0, "the ATR starts with \(Hex.encode([a[0]])), not 3B") }
        guard a[1] & 0xF0 == 0x80 else { throw NFCTagError(.tagResponse, at: 1, "T0 \(Hex.encode([a[1]])) does not announce TD1 alone") }
        guard a[2] == 0x80, a[3] == 0x01 else { throw NFCTagError(.tagResponse, at: 2, "TD1 TD2 are not 80 01") }
        let count = Int(a[1] & 0x0F)
        guard a.count == 4 + count + 1 else {
            throw NFCTagError(.tagResponse, at: min(a.count, 4 + count), "the ATR has \(a.count) bytes where T0 announces \(count) historical bytes and TCK")
        }
        let tck = a[1..<(4 + count)].reduce(UInt8(0), ^)
        guard tck == a[4 + count] else { throw NFCTagError(.tagResponse, at: 4 + count, "TCK is \(Hex.encode([a[4 + count]])), not \(Hex.encode([tck]))") }
        let historical = Array(a[4..<(4 + count)])
        if historical.count >= 11, historical[0] == 0x80, historical[1] == 0x4F, Array(historical[3..<8]) == PCSCPart3.rid {
            self = .storageCard(standard: historical[8], cardName: UInt16(historical[9]) << 8 | UInt16(historical[10]))
        } else {
            self = .isoDEP(historicalBytes: Bytes(historical))
        }
    }

    /// The ATR's bytes, TCK included.
    public var bytes: Bytes {
        let historical: [UInt8] =
            switch self {
            case .storageCard(let standard, let name):
                [0x80, 0x4F, 0x0C] + PCSCPart3.rid + [standard, UInt8(name >> 8), UInt8(name & 0xFF), 0x00, 0x00, 0x00, 0x00]
            case .isoDEP(let h): Array(h.array.prefix(15))
            }
        let body = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return Bytes([0x3B] + body + [body.reduce(UInt8(0), ^)])
    }
}
